import { z } from 'zod';
import { env } from '@flowboard/service-kit';

/** host:port of a gRPC peer (no scheme). */
const grpcAddress = () => z.string().regex(/^[^\s/]+:\d+$/, 'must be host:port');
const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/** Every environment variable the gateway reads, parsed once at start-up. */
export const configSchema = z.object({
  PORT: env.port(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  REDIS_URL: env.url(),
  MEMBERSHIP_ADDR: grpcAddress(),
  BOARDS_ADDR: grpcAddress(),
  FILES_ADDR: grpcAddress(),
  /** The files service's internal HTTP port (attachment streams), e.g. http://127.0.0.1:50063. */
  FILES_HTTP_URL: env.url(),
  GRPC_DEADLINE_MS: positiveInt(5000),
  /** Non-multipart request bodies above this size are refused with 413. */
  BODY_LIMIT_BYTES: positiveInt(1_048_576),
  AUTH_CACHE_TTL_SECONDS: positiveInt(60),
  ACCESS_CACHE_TTL_SECONDS: positiveInt(30),
  LOG_LEVEL: env.logLevel(),
});

export type GatewayConfig = z.infer<typeof configSchema>;
