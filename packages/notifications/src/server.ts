import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { PlatformServer, PlatformServerOptions } from './options.js';

/** Builds the platform's HTTP app without listening (tests use `app.inject`). */
export async function buildPlatformApp(options: PlatformServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger | undefined,
    trustProxy: options.trustProxy,
    bodyLimit: 1024 * 1024,
  });
  app.get('/healthz', async () => ({ ok: true }));
  if (options.webRoot && fs.existsSync(path.join(options.webRoot, 'index.html'))) {
    await app.register(fastifyStatic, { root: path.resolve(options.webRoot), wildcard: false });
    // Client-side routes (/dashboard/..., /apps/...) load the single page; API paths stay 404.
    app.setNotFoundHandler((request, reply) => {
      if (request.method === 'GET' && !request.url.startsWith('/api/')) return reply.sendFile('index.html');
      return reply
        .code(404)
        .send({ success: false, error: 'Not Found', message: `no route ${request.method} ${request.url}` });
    });
  }
  return app;
}

/** Builds the platform app and listens on `host:port`. */
export async function startPlatformServer(options: PlatformServerOptions): Promise<PlatformServer> {
  const app = await buildPlatformApp(options);
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    close: () => app.close(),
  };
}
