import './instrumentation';
import { createLogger, loadConfigOrExit, runService } from '@flowboard/service-kit';
import { createApp } from './app';
import { configSchema } from './config';

const config = loadConfigOrExit(configSchema);
const logger = createLogger('webhooks', config.LOG_LEVEL);
void runService(createApp(config, logger), logger);
