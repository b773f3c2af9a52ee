/** Option builders shared by `up`, `chain start` and `serve`, so the three agree on names, env vars and defaults. */
import { parsePublicUrl, parseTrustProxy, platformLimitDefaults as limits } from '@wharf/platform/settings';
import { type Command, Option } from 'commander';
import {
  asFlagParser,
  parseBigInt,
  parseDuration,
  parseDurationList,
  parseEther,
  parseInteger,
  parseMnemonic,
  parsePort,
  parsePositiveInteger,
  parsePositiveSecondsAsMs,
  parseSeconds,
  parseUrl,
} from '../flags.js';
import { logFormats, logLevels } from '../logger.js';
import { addRpcLimitOptions } from './rpcLimitOptions.js';

export function addDataDirOption(cmd: Command): Command {
  return cmd.addOption(
    new Option('--data-dir <dir>', 'data directory (chain/ and the SQLite file inside)')
      .env('WHARF_DATA_DIR')
      .default('./.wharf'),
  );
}

export function addStoreOptions(cmd: Command): Command {
  addDataDirOption(cmd);
  return cmd.addOption(
    new Option(
      '--database-url <url>',
      'PostgreSQL URL for the notifications store (default: SQLite in the data dir)',
    )
      .env('WHARF_DATABASE_URL')
      .argParser(parseUrl(['postgres:', 'postgresql:'])),
  );
}

/** Chain flags; `portFlag` is --port for `chain start` and --chain-port for `up`. */
export function addChainOptions(cmd: Command, portFlag: '--port' | '--chain-port'): Command {
  return addRpcLimitOptions(cmd)
    .addOption(
      new Option(`${portFlag} <port>`, 'chain JSON-RPC port (HTTP and WebSocket)')
        .env('WHARF_CHAIN_PORT')
        .argParser(parsePort)
        .default(8545),
    )
    .addOption(
      // No commander default: a fork takes the remote's chain id unless this is given.
      new Option('--chain-id <id>', "chain id (default: 31337; with --fork-url the remote's)")
        .env('WHARF_CHAIN_ID')
        .argParser(parseBigInt),
    )
    .addOption(
      new Option('--block-time <seconds>', 'seconds between sealed blocks; 0 seals one block per transaction')
        .env('WHARF_BLOCK_TIME')
        .argParser(parseSeconds)
        .default(2),
    )
    .addOption(
      new Option('--flashblock-interval <ms>', 'milliseconds between pre-confirmations (flashblocks)')
        .env('WHARF_FLASHBLOCK_INTERVAL')
        .argParser(parsePositiveInteger)
        .default(200),
    )
    .addOption(
      new Option(
        '--journal-wait <duration>',
        "longest wait for the flashblock journal's disk; past it the flashblock is not shown and its transactions wait for the next",
      )
        .env('WHARF_JOURNAL_WAIT')
        .argParser(parseDuration)
        .default(2000, '2s'),
    )
    .addOption(
      new Option(
        '--pool-journal-delay <duration>',
        'how long an accepted transaction waits before the pool journal writes it; one pre-confirmed meanwhile is not written (it is in the flashblock journal)',
      )
        .env('WHARF_POOL_JOURNAL_DELAY')
        .argParser(parseDuration)
        .default(500, '500ms'),
    )
    .addOption(new Option('--no-mining', 'never seal blocks (imported chains, conformance runs)'))
    .addOption(
      new Option(
        '--pending-nulls',
        "answer the block being built with number and hash null and pre-confirmed receipts with blockHash null (the spec table's wording) instead of Base's shape (number = latest + 1, zero hash)",
      ).env('WHARF_PENDING_NULLS'),
    )
    .addOption(
      // Deprecated (decision 0120): it worked around ethers v6 rejecting a null blockHash, which
      // the default shape no longer has. Accepted so scripts keep starting; it changes nothing.
      new Option('--no-preconf-receipts', 'deprecated, ignored: ethers v6 needs no flag any more')
        .env('WHARF_NO_PRECONF_RECEIPTS')
        .hideHelp(),
    )
    .addOption(
      new Option('--gas-limit <gas>', 'block gas limit')
        .env('WHARF_GAS_LIMIT')
        .argParser(parseBigInt)
        .default(60_000_000n, '60000000'),
    )
    .addOption(
      new Option('--base-fee <wei>', 'base fee per gas of the genesis block')
        .env('WHARF_BASE_FEE')
        .argParser(parseBigInt)
        .default(1_000_000_000n, '1000000000'),
    )
    .addOption(
      new Option('--accounts <n>', 'number of funded dev accounts')
        .env('WHARF_ACCOUNTS')
        .argParser(parseInteger)
        .default(10),
    )
    .addOption(
      new Option('--mnemonic <words>', 'mnemonic of the dev accounts')
        .env('WHARF_MNEMONIC')
        .argParser(parseMnemonic)
        .default('test test test test test test test test test test test junk'),
    )
    .addOption(
      new Option('--balance <eth>', 'balance of each dev account, in ether')
        .env('WHARF_BALANCE')
        .argParser(parseEther)
        .default(10_000n * 10n ** 18n, '10000'),
    )
    .addOption(
      new Option('--genesis <file>', 'start from a geth genesis.json instead of the dev genesis').env(
        'WHARF_GENESIS',
      ),
    )
    .addOption(
      new Option(
        '--no-dev-methods',
        'turn off the test methods (anvil_*, hardhat_*, evm_*, impersonation): any client may rewrite state with them',
      ).env('WHARF_NO_DEV_METHODS'),
    )
    .addOption(
      new Option('--ephemeral', 'keep the chain in memory only, as Anvil does (nothing in --data-dir)').env(
        'WHARF_EPHEMERAL',
      ),
    )
    .addOption(
      new Option('--load-state <file>', "load an Anvil state file at start (Anvil's JSON)").env(
        'WHARF_LOAD_STATE',
      ),
    )
    .addOption(
      new Option('--dump-state <file>', "write the state to this file on exit (Anvil's JSON)").env(
        'WHARF_DUMP_STATE',
      ),
    )
    .addOption(
      new Option('--state <file>', 'both: load the file at start if it exists, write it on exit').env(
        'WHARF_STATE',
      ),
    )
    .addOption(
      new Option(
        '--fork-url <url>',
        "fork this node's chain: read accounts, code, storage and older blocks from it as needed (kept in --data-dir)",
      )
        .env('WHARF_FORK_URL')
        .argParser(parseUrl(['http:', 'https:'])),
    )
    .addOption(
      new Option('--fork-block-number <n>', "the block to fork at (default: the remote's latest)")
        .env('WHARF_FORK_BLOCK_NUMBER')
        .argParser(parseBigInt),
    )
    .addOption(
      new Option('--fork-timeout <duration>', 'how long one request to the fork remote may take')
        .env('WHARF_FORK_TIMEOUT')
        .argParser(parseDuration)
        .default(10_000, '10s'),
    )
    .addOption(
      new Option(
        '--state-window <blocks>',
        'past blocks whose state (balances, storage, proofs, calls, traces) stays readable; their trie changes are kept in memory',
      )
        .env('WHARF_STATE_WINDOW')
        .argParser(parsePositiveInteger)
        .default(128),
    )
    .addOption(
      new Option(
        '--state-window-memory <MiB>',
        "memory for the window's trie changes; beyond it the oldest blocks' state goes early",
      )
        .env('WHARF_STATE_WINDOW_MEMORY')
        .argParser(parsePositiveInteger)
        .default(32),
    )
    .addOption(
      new Option(
        '--state-cache-memory <MiB>',
        'trie nodes of the state on disk kept in memory, read again without the disk; 0: none',
      )
        .env('WHARF_STATE_CACHE_MEMORY')
        .argParser(parseInteger)
        .default(32),
    );
}

export function addServeOptions(cmd: Command): Command {
  addStoreOptions(cmd);
  return cmd
    .addOption(
      new Option('--port <port>', 'platform HTTP port (API, app, dashboard)')
        .env('WHARF_PORT')
        .argParser(parsePort)
        .default(3000),
    )
    .addOption(
      new Option(
        '--redis-url <url>',
        'Redis URL: shared rate-limit counters and live fan-out across instances',
      )
        .env('WHARF_REDIS_URL')
        .argParser(parseUrl(['redis:', 'rediss:'])),
    )
    .addOption(
      new Option(
        '--redis-prefix <prefix>',
        'prefix of every Redis key and channel (deployments sharing one Redis use different prefixes)',
      )
        .env('WHARF_REDIS_PREFIX')
        .default('wharf:'),
    )
    .addOption(
      new Option('--rate-limit <n>', 'requests per minute per IP on the notification endpoints')
        .env('WHARF_RATE_LIMIT')
        .argParser(parsePositiveInteger)
        .default(20),
    )
    .addOption(
      new Option(
        '--trust-proxy <hops|addresses>',
        'behind a reverse proxy: how many hops of X-Forwarded-For to trust (1 behind one proxy), or the proxies’ addresses/CIDRs (10.0.0.0/8,127.0.0.1)',
      )
        .env('WHARF_TRUST_PROXY')
        .argParser(asFlagParser(parseTrustProxy)),
    )
    .addOption(
      new Option(
        '--public-url <url>',
        'the origin people reach the platform at (https://wharf.example.com): the only one sign-in accepts, and the base of printed links (default: http://127.0.0.1:PORT and the other loopback names)',
      )
        .env('WHARF_PUBLIC_URL')
        .argParser(asFlagParser(parsePublicUrl)),
    )
    .addOption(
      new Option(
        '--client-rate-limit <n>',
        'requests per minute per session on the client and dashboard APIs',
      )
        .env('WHARF_CLIENT_RATE_LIMIT')
        .argParser(parsePositiveInteger)
        .default(limits.clientRateLimit),
    )
    .addOption(
      new Option(
        '--ip-rate-limit <n>',
        'requests per minute per IP on signed-in client and dashboard routes, counted before the token',
      )
        .env('WHARF_IP_RATE_LIMIT')
        .argParser(parsePositiveInteger)
        .default(limits.ipRateLimit),
    )
    .addOption(
      new Option('--admin-rate-limit <n>', 'requests per minute per IP on the admin API')
        .env('WHARF_ADMIN_RATE_LIMIT')
        .argParser(parsePositiveInteger)
        .default(limits.adminRateLimit),
    )
    .addOption(
      new Option(
        '--request-timeout <seconds>',
        'a request (headers and body) must arrive within this; else 408',
      )
        .env('WHARF_REQUEST_TIMEOUT')
        .argParser(parsePositiveSecondsAsMs)
        .default(limits.requestTimeoutMs, String(limits.requestTimeoutMs / 1000)),
    )
    .addOption(
      new Option('--headers-timeout <seconds>', 'request headers must arrive within this; else 408')
        .env('WHARF_HEADERS_TIMEOUT')
        .argParser(parsePositiveSecondsAsMs)
        .default(limits.headersTimeoutMs, String(limits.headersTimeoutMs / 1000)),
    )
    .addOption(
      new Option('--idle-timeout <seconds>', 'close a connection with no traffic for this long')
        .env('WHARF_IDLE_TIMEOUT')
        .argParser(parsePositiveSecondsAsMs)
        .default(limits.idleTimeoutMs, String(limits.idleTimeoutMs / 1000)),
    )
    .addOption(
      new Option('--body-limit <bytes>', 'largest request body; else 413')
        .env('WHARF_BODY_LIMIT')
        .argParser(parsePositiveInteger)
        .default(limits.bodyLimitBytes),
    )
    .addOption(
      new Option('--streams-per-session <n>', 'open notification streams (SSE) per session')
        .env('WHARF_STREAMS_PER_SESSION')
        .argParser(parsePositiveInteger)
        .default(limits.streamsPerSession),
    )
    .addOption(
      new Option('--streams-per-address <n>', 'open notification streams (SSE) per wallet')
        .env('WHARF_STREAMS_PER_ADDRESS')
        .argParser(parsePositiveInteger)
        .default(limits.streamsPerAddress),
    )
    .addOption(
      new Option('--stream-buffer <bytes>', 'bytes queued for a slow stream reader before it is dropped')
        .env('WHARF_STREAM_BUFFER')
        .argParser(parsePositiveInteger)
        .default(limits.streamBufferBytes),
    )
    .addOption(
      new Option('--session-ttl <seconds>', 'lifetime of a client sign-in (dashboard: at most 24 hours)')
        .env('WHARF_SESSION_TTL')
        .argParser(parsePositiveSecondsAsMs)
        .default(limits.sessionTtlMs, String(limits.sessionTtlMs / 1000)),
    )
    .addOption(
      new Option(
        '--outbox-lease <ms>',
        'milliseconds an instance owns the live push of a send it stored before another instance pushes it',
      )
        .env('WHARF_OUTBOX_LEASE')
        .argParser(parsePositiveInteger)
        .default(5000),
    )
    .addOption(
      new Option(
        '--webhook-block-private',
        'refuse webhook URLs that are or resolve to private, loopback or link-local addresses (exposed deployments)',
      ).env('WHARF_WEBHOOK_BLOCK_PRIVATE'),
    )
    .addOption(
      new Option(
        '--webhook-retry-schedule <durations>',
        'delays before webhook retries, the last repeating for 24 h',
      )
        .env('WHARF_WEBHOOK_RETRY_SCHEDULE')
        .argParser(parseDurationList)
        .default(undefined, '1s,5s,30s,2m,10m,30m,1h,2h,4h'),
    )
    .addOption(
      new Option('--webhook-timeout <duration>', 'time a webhook receiver has to answer')
        .env('WHARF_WEBHOOK_TIMEOUT')
        .argParser(parseDuration)
        .default(10_000, '10s'),
    )
    .addOption(
      new Option('--webhook-log-days <days>', 'days a finished webhook event stays in the delivery log')
        .env('WHARF_WEBHOOK_LOG_DAYS')
        .argParser(parsePositiveInteger)
        .default(30),
    )
    .addOption(
      new Option('--send-log-days <days>', "days a send stays in the dashboard's send log")
        .env('WHARF_SEND_LOG_DAYS')
        .argParser(parsePositiveInteger)
        .default(30),
    )
    .addOption(
      new Option('--admin-token <token>', 'operator token for the admin API (generated when omitted)').env(
        'WHARF_ADMIN_TOKEN',
      ),
    );
}

export function addHostOption(cmd: Command): Command {
  return cmd.addOption(
    new Option('--host <host>', 'interface to listen on').env('WHARF_HOST').default('127.0.0.1'),
  );
}

/** Log flags of the long-running commands (`up`, `chain start`, `serve`). */
export function addLogOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--log-level <level>', 'least severe log level written to stderr')
        .env('WHARF_LOG_LEVEL')
        .choices(logLevels)
        .default('info'),
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'pretty: one line per event; json: one JSON object per line (default: pretty on a terminal, json otherwise)',
      )
        .env('WHARF_LOG_FORMAT')
        .choices(logFormats),
    );
}
