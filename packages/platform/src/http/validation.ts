/**
 * Request validation from the route schemas (TypeBox, compiled by Ajv), with the service's own
 * 400s: the first broken field in the schema's property order (the spec's order: app_url,
 * wallet_addresses, title, message, target_path), and within a field the first broken rule
 * (missing, then type, then size, then entries and format), in the words the API has always used
 * (docs/errors.md, VALIDATION_FAILED). Bodies are not coerced (a number is not a title); query
 * strings are (`limit=10` is an integer, `notification_enabled=true` a boolean).
 *
 * Used by the developer API, the dashboard's users/status/send and the client API's pins and
 * inbox list; routes whose schemas only document keep fastify's validation off and check in the
 * domain.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { normalizeAppUrl } from '../domain/appUrl.js';
import { invalid, type ServiceError } from '../errors.js';

/** The schema keyword that checks an app URL as the domain normalizes it (`appUrl.ts`). */
export const appUrlKeyword = 'x-wharf-app-url';
const addressRule = 'must be a valid address (0x followed by 40 hex digits)';

function newAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, verbose: true, coerceTypes, useDefaults: true, strict: false });
  ajv.addKeyword({
    keyword: appUrlKeyword,
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: function check(_enabled: boolean, data: string) {
      const result = normalizeAppUrl(data);
      (check as unknown as { errors: Partial<ErrorObject>[] }).errors = result.ok
        ? []
        : [{ keyword: appUrlKeyword, message: result.reason, params: {} }];
      return result.ok;
    },
  });
  return ajv;
}
const bodyAjv = newAjv(false);
const queryAjv = newAjv(true);

/** "wallet_addresses[3]" from "/wallet_addresses/3" (the field for the message). */
function fieldOf(error: ErrorObject): string {
  if (error.keyword === 'required') return (error.params as { missingProperty: string }).missingProperty;
  const [field = '', ...rest] = error.instancePath.split('/').slice(1);
  return rest.reduce((name, index) => `${name}[${index}]`, field);
}

/** [rank, rule]: the lower rank is reported first within one field. */
function ruleOf(error: ErrorObject, field: string): [number, string] {
  const schema = error.parentSchema as Record<string, unknown> | undefined;
  const isEntry = field.includes('[');
  const isAddress = isEntry || field === 'wallet_address';
  // A yes/no field answers the same whether it is missing, null or of another type.
  const fieldSchema =
    error.keyword === 'required'
      ? (schema?.properties as Record<string, { type?: unknown }> | undefined)?.[field]
      : schema;
  if ((error.keyword === 'required' || error.keyword === 'type') && fieldSchema?.type === 'boolean')
    return [1, 'must be true or false'];
  switch (error.keyword) {
    case 'required':
      return [0, 'is required'];
    case 'type': {
      if (error.data === null || error.data === undefined) return [0, 'is required'];
      if (isAddress) return [isEntry ? 3 : 1, addressRule];
      const expected = (error.params as { type: string }).type;
      if (expected === 'object') return [1, 'must be a JSON object'];
      if (expected === 'array') return [1, 'must be an array of addresses'];
      if (expected === 'integer' || expected === 'number') return [1, 'must be an integer'];
      if (expected === 'boolean') return [1, 'must be true or false'];
      return [1, 'must be a string'];
    }
    case 'minLength':
      return [0, 'is required'];
    case 'minItems':
      return [
        2,
        `must have at least ${error.params.limit} ${error.params.limit === 1 ? 'entry' : 'entries'}`,
      ];
    case 'maxItems':
      return [2, `must have at most ${Number(error.params.limit).toLocaleString('en-US')} entries`];
    case 'maxLength':
      return [2, `must be at most ${error.params.limit} characters`];
    case 'minimum':
      return [2, `must be at least ${error.params.limit}`];
    case 'maximum':
      return [2, `must be at most ${error.params.limit}`];
    case 'pattern': {
      if (isAddress)
        return [error.data === '' ? 0 : isEntry ? 3 : 1, error.data === '' ? 'is required' : addressRule];
      // A text that is empty after trimming counts as missing (pattern \S).
      if (schema?.pattern === '\\S') return [0, 'is required'];
      const data = String(error.data);
      if (!data.startsWith('/')) return [3, "must start with '/'"];
      return [3, "must not start with '//' or '/\\' (it would leave the app's origin)"];
    }
    case appUrlKeyword:
      return [3, error.message ?? 'is not a valid app URL'];
    default:
      return [4, error.message ?? 'is not valid'];
  }
}

/** Lexicographic order of [field position, rule rank, entry index]. */
function comesFirst(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** The one 400 for a failed validation: the first field of `order`, its first rule. */
function validationError(errors: readonly ErrorObject[], order: readonly string[]): ServiceError {
  let best: { field: string; key: number[]; rule: string } | undefined;
  for (const error of errors) {
    const field = fieldOf(error);
    const base = field.replace(/\[.*$/, '');
    const position = field === '' ? -1 : order.includes(base) ? order.indexOf(base) : order.length;
    const [rank, rule] = ruleOf(error, field);
    // An entry's index breaks ties: the first broken entry is the one reported.
    const index = Number(/\[(\d+)\]/.exec(field)?.[1] ?? -1);
    const key = [position, rank, index];
    if (!best || comesFirst(key, best.key)) best = { field, key, rule };
  }
  return best ? invalid(best.field || 'body', best.rule) : invalid('body', 'is not valid');
}

/**
 * A query string's integer is decimal digits (`-?\d+`): Ajv's coercion would also take `1e2`,
 * ` 5` or `0x10`, which the API has always refused. Returns the errors of such fields.
 */
function strictIntegers(
  data: unknown,
  properties: Record<string, { type?: unknown }>,
): { errors: ErrorObject[]; rest: unknown } {
  if (typeof data !== 'object' || data === null) return { errors: [], rest: data };
  const errors: ErrorObject[] = [];
  const rest: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const [name, schema] of Object.entries(properties)) {
    const value = rest[name];
    if (schema.type !== 'integer' || typeof value !== 'string' || /^-?\d+$/.test(value)) continue;
    errors.push({
      keyword: 'type',
      instancePath: `/${name}`,
      schemaPath: `#/properties/${name}/type`,
      params: { type: 'integer' },
      data: value,
    });
    delete rest[name];
  }
  return { errors, rest };
}

/** Fastify's validator compiler for the routes that validate with their schemas. */
export const schemaValidator: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  const validate: ValidateFunction = ajv.compile(schema as object);
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const order = Object.keys(properties);
  return (data: unknown) => {
    if (httpPart !== 'body') {
      const strict = strictIntegers(data, properties);
      if (strict.errors.length > 0) {
        validate(strict.rest);
        return { error: validationError([...strict.errors, ...(validate.errors ?? [])], order) };
      }
    }
    if (validate(data)) return { value: data };
    return { error: validationError(validate.errors ?? [], order) };
  };
};
