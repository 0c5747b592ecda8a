/**
 * One naming style for requests: a request of a domain is `domain.verb` (`queue.add`,
 * `prompts.answer`, `hosts.check`, `shim.install`); the seat verbs of the engine itself are one
 * word (`up`, `ps`, `launch`). No compound like `answerPrompt` or `hostsAdd` beside them.
 */
import { describe, expect, it } from 'vitest';
import { REQUESTS } from '../../../src/shared/contract';

describe('request names', () => {
  it('are one lower-case word, or a domain and a verb joined by a dot', () => {
    const odd = Object.keys(REQUESTS).filter((m) => !/^[a-z]+(\.[a-z][A-Za-z]*)?$/.test(m));
    expect(odd).toEqual([]);
  });
});
