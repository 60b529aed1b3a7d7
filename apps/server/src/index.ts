export { createMinilake, ownedDataFolders, type Minilake, type CreateOptions } from './server.js';
export {
  parseConfig,
  readConfig,
  hostSettings,
  serviceSettings,
  ConfigError,
  type MinilakeConfig,
} from './config.js';
export { loadConfig } from './startup.js';
export { StartupError, makeDataDir } from './host/data-dir.js';
export { configTable, withConfigTable } from './settings-table.js';
export { listen, type Listening } from './listen.js';
export { registry, serviceNames } from './registry.js';
