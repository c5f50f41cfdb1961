import { ConfigError, createLogger, runService } from '@flowboard/service-kit';
import { createApp } from './app';
import { loadFilesConfig, type FilesConfig } from './config';

let config: FilesConfig;
try {
  config = loadFilesConfig();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}
const logger = createLogger('files', config.LOG_LEVEL);
void runService(createApp(config, logger), logger);
