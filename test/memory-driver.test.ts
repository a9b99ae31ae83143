import { memoryDriver } from '../drivers/memory/index.js';
import { runDriverSuite } from './driver-suite.js';

runDriverSuite('memory', () => memoryDriver());
