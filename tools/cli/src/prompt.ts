import readline from 'node:readline';
import type { Io } from './context';

/**
 * Asks one question on the terminal (stderr, so stdout stays the data); with `hidden` the answer is
 * not echoed. Without a terminal the answer is the next line of stdin (`echo $PASSWORD | platform login`).
 */
export function prompt(io: Io, question: string, hidden = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const terminal = !!io.stdin.isTTY;
    const rl = readline.createInterface({ input: io.stdin, output: terminal ? io.stderr : undefined, terminal });
    if (terminal) io.stderr.write(question);
    if (hidden && terminal) {
      // Echo nothing of what is typed (readline writes through _writeToOutput).
      (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = (text: string) => {
        if (text.includes('\n') || text.includes('\r')) io.stderr.write('\n');
      };
    }
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) reject(new Error(`no answer to "${question.trim()}" (stdin ended)`));
    });
  });
}
