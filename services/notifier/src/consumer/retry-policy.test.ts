import { PermanentMessageError } from '@flowboard/messaging';
import { classifySendError, sendRetryDelay } from './retry-policy';

describe('sendRetryDelay', () => {
  it('starts at the initial wait and doubles per attempt up to the ceiling', () => {
    const delay = sendRetryDelay({ initialMs: 1_000, maxMs: 60_000, random: () => 0.5 });
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map(delay)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('spreads retries by ±20 % so replicas do not hammer the server in step', () => {
    expect(sendRetryDelay({ initialMs: 1_000, maxMs: 60_000, random: () => 0 })(1)).toBe(800);
    expect(sendRetryDelay({ initialMs: 1_000, maxMs: 60_000, random: () => 0.999_999 })(1)).toBe(1_200);
    expect(sendRetryDelay({ initialMs: 1_000, maxMs: 60_000, random: () => 0 })(30)).toBe(48_000);
  });

  it('never waits less than the initial delay when the ceiling is set below it', () => {
    expect(sendRetryDelay({ initialMs: 5_000, maxMs: 100, random: () => 0.5 })(3)).toBe(5_000);
  });
});

describe('classifySendError', () => {
  it('retries connection failures and temporary refusals', () => {
    for (const error of [
      { code: 'ESOCKET', message: 'connect ECONNREFUSED' },
      { code: 'ETIMEDOUT' },
      { code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO' },
      { code: 'EAUTH', responseCode: 535 },
      undefined,
    ]) {
      const classified = classifySendError(error);
      expect(classified).not.toBeInstanceOf(PermanentMessageError);
    }
  });

  it('dead-letters a recipient or message refused for good', () => {
    expect(classifySendError({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' })).toBeInstanceOf(
      PermanentMessageError,
    );
    expect(classifySendError({ code: 'EMESSAGE', responseCode: 554 })).toBeInstanceOf(PermanentMessageError);
  });
});
