// First import of main.ts: tracing (when the OTEL_* variables ask for it) starts before pg and the rest load.
import { startTracing } from '@flowboard/service-kit/tracing-sdk';

startTracing('webhooks');
