export { createMinilake, ownedDataFolders, type Minilake, type CreateOptions } from './server.js';
export { parseConfig, ConfigError, type MinilakeConfig } from './config.js';
export { listen, type Listening } from './listen.js';
export { registry, serviceNames } from './registry.js';
