import { Query } from './query';
import { checkJsonStrings, checkPathAndQuery, checkXmlStrings } from './text-rule';

describe('the NUL rule (every string of a request)', () => {
  it('checks text path parameters and every query argument, naming the one with a NUL', () => {
    expect(() =>
      checkPathAndQuery({ projectId: 1, tag: 'a b' }, new Query('where=x&with=tags')),
    ).not.toThrow();
    expect(() => checkPathAndQuery({}, new Query('with=tags&Where=text:a%00b'))).toThrow(
      "Query argument 'Where' must not contain a NUL character.", // as the client spelled it
    );
    expect(() => checkPathAndQuery({}, new Query('unknown=%00'))).toThrow("Query argument 'unknown'");
    expect(() => checkPathAndQuery({ tag: '\u0000' }, new Query(''))).toThrow(
      "Path parameter 'tag' must not contain a NUL character.",
    );
  });

  it('finds a NUL at any depth of a JSON body and names its field', () => {
    expect(() =>
      checkJsonStrings({ text: 'ok', tasks: [{ text: 'fine' }], size: 5, owner: null }),
    ).not.toThrow();
    expect(() => checkJsonStrings({ name: 'a\u0000' })).toThrow(
      "Field 'name' must not contain a NUL character.",
    );
    expect(() => checkJsonStrings({ tasks: [{ text: 'a' }, { text: '\u0000' }] })).toThrow(
      "Field 'tasks[1].text'",
    );
    expect(() => checkJsonStrings(['ok', 'b\u0000'])).toThrow("Field '[1]'");
    expect(() => checkJsonStrings('\u0000')).toThrow('The request body must not contain a NUL character.');
  });

  it('finds a NUL in an XML body, repeated elements included', () => {
    type El = { name: string; text: string; children: El[] };
    const el = (name: string, text: string, children: El[] = []): El => ({ name, text, children });
    const phases = el('phases', '', [
      el('phase', '', [el('name', 'a')]),
      el('phase', '', [el('name', 'b\u0000')]),
    ]);
    expect(() => checkXmlStrings(phases)).toThrow("Field 'phase.name' must not contain a NUL character.");
    expect(() => checkXmlStrings(el('story', '', [el('text', 'fine')]))).not.toThrow();
  });
});
