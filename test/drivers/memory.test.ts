import { memoryDriver } from '../../drivers/memory/index.js';
import { runDriverSuite } from './suite.js';

runDriverSuite('memory', () => memoryDriver());
