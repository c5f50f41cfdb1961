import { DomainError } from '@flowboard/service-kit';
import { parseNewStory } from './story';

const expectInvalid = (fn: () => unknown, field: RegExp) => {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).kind).toBe('InvalidArgument');
  expect((error as DomainError).message).toMatch(field);
};

describe('parseNewStory', () => {
  it('applies the defaults: empty strings, grey, no deadline', () => {
    expect(parseNewStory({ text: 'Build Spec house' })).toEqual({
      text: 'Build Spec house',
      details: '',
      size: '',
      priority: '',
      color: 'grey',
      deadline: null,
    });
  });

  it('requires text (blank counts as missing)', () => {
    expectInvalid(() => parseNewStory({}), /text/);
    expectInvalid(() => parseNewStory({ text: '' }), /text/);
    expectInvalid(() => parseNewStory({ text: ' \n\t' }), /text/);
  });

  it('caps text at 2,000 characters, counting code points', () => {
    expect(parseNewStory({ text: 'x'.repeat(2000) }).text).toHaveLength(2000);
    expect(parseNewStory({ text: '😀'.repeat(2000) }).text).toHaveLength(4000); // 2,000 characters, 4,000 UTF-16 units
    expectInvalid(() => parseNewStory({ text: 'x'.repeat(2001) }), /text/);
  });

  it('keeps text as given', () => {
    expect(parseNewStory({ text: '  Buy boat "The Sea Word"  ' }).text).toBe('  Buy boat "The Sea Word"  ');
  });

  it('trims size and priority and caps them at 50', () => {
    const story = parseNewStory({ text: 't', size: ' 5 ', priority: '\tHigh\n' });
    expect(story.size).toBe('5');
    expect(story.priority).toBe('High');
    expect(parseNewStory({ text: 't', size: ` ${'s'.repeat(50)} ` }).size).toHaveLength(50);
    expectInvalid(() => parseNewStory({ text: 't', size: 's'.repeat(51) }), /size/);
    expectInvalid(() => parseNewStory({ text: 't', priority: 'p'.repeat(51) }), /priority/);
  });

  it('caps details at 100,000 characters', () => {
    expect(parseNewStory({ text: 't', details: 'd'.repeat(100_000) }).details).toHaveLength(100_000);
    expectInvalid(() => parseNewStory({ text: 't', details: 'd'.repeat(100_001) }), /details/);
  });

  it('refuses NUL characters, which PostgreSQL text cannot store', () => {
    expectInvalid(() => parseNewStory({ text: 'a\u0000b' }), /text/);
    expectInvalid(() => parseNewStory({ text: 't', details: '\u0000' }), /details/);
  });

  it('validates colour and deadline', () => {
    expect(parseNewStory({ text: 't', color: 'ORANGE', deadline: '2011-02-24' })).toMatchObject({
      color: 'orange',
      deadline: new Date('2011-02-24T00:00:00Z'),
    });
    expectInvalid(() => parseNewStory({ text: 't', color: 'pink' }), /color/);
    expectInvalid(() => parseNewStory({ text: 't', deadline: 'soon' }), /deadline/);
  });
});
