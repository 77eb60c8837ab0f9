// The bundle's entry (dist/tools/cli/platform.js): runs the command line.
import { main } from './main';

void main();
