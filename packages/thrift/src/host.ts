/** The Thrift implementation, loaded by the first Thrift call (see index.ts). */
export { thriftApp, processThrift } from './app.js';
export { ThriftService } from './service.js';
export { serviceRunner } from './runner.js';
