import { XMLParser } from 'fast-xml-parser';
import { XML_ONLY_EMPTY, toJson, phaseDto } from '@flowboard/representation';
import { pageOf } from './page';
import { escapeText, jsonElement, toXml } from './xml';

const DECL = '<?xml version="1.0" encoding="utf-8"?>';

describe('toXml (docs/compat.md §2)', () => {
  it('writes children in alphabetical order at every level', () => {
    const xml = toXml('story', { id: 1, text: 't', color: 'red', phase: { name: 'Working', id: 3 } });
    expect(xml).toBe(
      `${DECL}<story><color>red</color><id>1</id><phase><id>3</id><name>Working</name></phase><text>t</text></story>`,
    );
  });

  it('uses ordinal order (createTime before creator, page before pageSize)', () => {
    expect(toXml('x', { creator: 'a', createTime: 'b' })).toBe(
      `${DECL}<x><createTime>b</createTime><creator>a</creator></x>`,
    );
  });

  it('wraps arrays with one singular element per item', () => {
    const xml = toXml('project', {
      members: [{ id: 1 }, { id: 2 }],
      phases: [{ id: 3 }],
      roles: [{ id: 4, members: [] }],
    });
    expect(xml).toBe(
      `${DECL}<project><members><user><id>1</id></user><user><id>2</id></user></members>` +
        '<phases><phase><id>3</id></phase></phases><roles><role><id>4</id><members /></role></roles></project>',
    );
  });

  it('writes empty strings and arrays as empty elements and omits undefined', () => {
    expect(toXml('story', { details: '', tags: [], owner: undefined, size: '' })).toBe(
      `${DECL}<story><details /><size /><tags /></story>`,
    );
  });

  it('an unset phase limit is <limit /> in XML and absent in JSON', () => {
    const phase = phaseDto({ id: 1, name: 'Backlog', description: 'd', index: 0, limit: 0, version: 1 });
    expect(phase.limit).toBe(XML_ONLY_EMPTY);
    expect(toXml('phase', phase)).toContain('<limit />');
    expect(toJson(phase)).toBe('{"id":1,"name":"Backlog","description":"d","index":0}');
    expect(toJson(phaseDto({ id: 2, name: 'W', description: '', index: 2, limit: 3, version: 1 }))).toContain(
      '"limit":3',
    );
  });

  it('escapes text and keeps quotes readable', () => {
    const xml = toXml('story', { text: 'Buy boat "The Sea Word" & <sail> >' });
    expect(xml).toContain('<text>Buy boat "The Sea Word" &amp; &lt;sail&gt; &gt;</text>');
    const parsed = new XMLParser({ processEntities: true }).parse(xml) as { story: { text: string } };
    expect(parsed.story.text).toBe('Buy boat "The Sea Word" & <sail> >');
  });

  it('replaces characters XML cannot carry and keeps carriage returns', () => {
    expect(escapeText('a\u0001b\r\n')).toBe('a\uFFFDb&#13;\n');
  });

  it('writes a page with the plural root, items of the singular type, envelope sorted', () => {
    const body = pageOf([{ id: 1, fileName: 'a.txt' }], { page: 1, pageSize: 100 });
    expect(toXml('attachments', body, 'attachment')).toBe(
      `${DECL}<attachments><items><attachment><fileName>a.txt</fileName><id>1</id></attachment></items>` +
        '<page>1</page><pageSize>100</pageSize><totalItems>1</totalItems><totalPages>1</totalPages></attachments>',
    );
    expect(toJson(body)).toBe(
      '{"page":1,"pageSize":100,"totalPages":1,"totalItems":1,"items":[{"id":1,"fileName":"a.txt"}]}',
    );
  });

  it('writes booleans and refuses arrays it has no item name for', () => {
    expect(toXml('apiKey', { enabled: false })).toBe(`${DECL}<apiKey><enabled>false</enabled></apiKey>`);
    expect(() => toXml('x', { widgets: [1] })).toThrow(/widgets/);
  });
});

describe('toJson', () => {
  it('never writes null and keeps key order', () => {
    expect(toJson({ b: 1, a: null as unknown as undefined, c: undefined, d: [1] })).toBe('{"b":1,"d":[1]}');
  });
});

describe('jsonElement: JSON from elsewhere (a change payload) as the contract XML', () => {
  it('orders children, wraps arrays with the API item names, omits null and undefined', () => {
    expect(
      jsonElement('data', {
        text: 't',
        tags: [{ name: 'x', id: 1 }],
        members: [{ id: 2 }],
        owner: null,
        details: '',
        done: false,
        empty: [],
        nested: {},
      }),
    ).toBe(
      '<data><details /><done>false</done><empty /><members><user><id>2</id></user></members><nested />' +
        '<tags><tag><id>1</id><name>x</name></tag></tags><text>t</text></data>',
    );
  });

  it('names items of an array the API has no name for `item`, nested arrays included', () => {
    expect(jsonElement('x', { odd: [1, 'two', [3]] })).toBe(
      '<x><odd><item>1</item><item>two</item><item><item>3</item></item></odd></x>',
    );
  });

  it('escapes text and makes any key a well-formed element name', () => {
    const xml = jsonElement('x', { 'a b': '<&>', '1st': 1, ü: 2 });
    expect(xml).toBe('<x><_>2</_><_1st>1</_1st><a_b>&lt;&amp;&gt;</a_b></x>');
    expect(() => new XMLParser().parse(xml)).not.toThrow();
  });
});
