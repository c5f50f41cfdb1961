import { ConfigError, createLogger, runService } from '@flowboard/service-kit';
import { createApp } from './app';
import { loadBoardsConfig, type BoardsConfig } from './config';

let config: BoardsConfig;
try {
  config = loadBoardsConfig();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}
const logger = createLogger('boards', config.LOG_LEVEL);
void runService(createApp(config, logger), logger);
