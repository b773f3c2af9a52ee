/**
 * The one place where errors become wire bodies: `{ success: false, error, message }`, with the
 * registry's code in the `x-wharf-error-code` header.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { isStoreUnavailable } from '../db/unavailable.js';
import { type ErrorCode, errorCodeHeader, errorCodes, ServiceError } from '../errors.js';

/** Maps Fastify's own errors (body parsing, media type, size) into the registry. */
function fromFastify(error: FastifyError): ServiceError {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError('BODY_TOO_LARGE', 'the request body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ServiceError('MALFORMED_BODY', 'body is required (a JSON object)');
  }
  if (error.statusCode === 400) return new ServiceError('MALFORMED_BODY', 'body must be valid JSON');
  if (error.statusCode === 404) return new ServiceError('NOT_FOUND', error.message);
  return new ServiceError('INTERNAL', 'internal server error', { cause: error });
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((raw, request, reply) => {
    const error =
      raw instanceof ServiceError
        ? raw
        : isStoreUnavailable(raw)
          ? new ServiceError('STORE_UNAVAILABLE', 'the service is temporarily unavailable; retry', {
              cause: raw,
              retryAfter: 5,
            })
          : fromFastify(raw as FastifyError);
    const { status, error: label } = errorCodes[error.code as ErrorCode];
    if (status >= 500) {
      request.log.error({ err: error.cause ?? raw, code: error.code }, error.message);
    } else {
      request.log.info({ code: error.code }, error.message);
    }
    if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
    reply.header(errorCodeHeader, error.code);
    return reply.code(status).send({ success: false, error: label, message: error.message });
  });
}
