import { memoryDriver } from '../../drivers/memory/index.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';

runDriverSuite('memory', () => memoryDriver());
runBoundedSuite('memory', () => memoryDriver());
