import { parseBodyText } from '../../wire/body';
import { updateMask, webhookFields } from './webhooks.routes';

const create = { urlRequired: true };
const update = { urlRequired: false };
const json = (text: string) => parseBodyText(text, 'application/json').object();
const xml = (text: string) => parseBodyText(text, 'application/xml').object();

describe('webhook bodies', () => {
  it('create: url required; eventTypes, active and description as sent, absent ones left out', () => {
    expect(webhookFields(json('{"url":"https://example.com/h"}'), create)).toEqual({
      url: 'https://example.com/h',
    });
    expect(
      webhookFields(
        json(
          '{"url":"https://example.com/h","eventTypes":["story.created"],"active":false,"description":"CI",' +
            '"id":9,"secret":"ignored"}',
        ),
        create,
      ),
    ).toEqual({
      url: 'https://example.com/h',
      eventTypes: ['story.created'],
      active: false,
      description: 'CI',
    });
    for (const body of ['{}', '{"url":"  "}', '{"url":null}'])
      expect(() => webhookFields(json(body), create)).toThrow("Field 'url' is required.");
  });

  it('XML: eventTypes as repeated <eventType> items, an empty <eventTypes /> is every type', () => {
    expect(
      webhookFields(
        xml(
          '<webhook><url>https://example.com/h</url><active>False</active>' +
            '<eventTypes><eventType>story.created</eventType><eventType>task.deleted</eventType></eventTypes>' +
            '</webhook>',
        ),
        create,
      ),
    ).toEqual({ url: 'https://example.com/h', active: false, eventTypes: ['story.created', 'task.deleted'] });
    expect(webhookFields(xml('<webhook><eventTypes /><description /></webhook>'), update)).toEqual({
      eventTypes: [],
      description: '',
    });
    // An empty boolean element is unset, as null is in JSON.
    expect(webhookFields(xml('<webhook><active /></webhook>'), update)).toEqual({});
  });

  it('refuses wrong shapes, naming the field', () => {
    const cases: Array<[string, string]> = [
      ['{"url":5}', "'url'"],
      ['{"eventTypes":"story.created"}', "'eventTypes'"],
      ['{"eventTypes":[1]}', "'eventTypes'"],
      ['{"eventTypes":[{"name":"story.created"}]}', "'eventTypes'"],
      ['{"active":"yes"}', "'active'"],
      ['{"active":1}', "'active'"],
      ['{"description":false}', "'description'"],
    ];
    for (const [body, field] of cases) expect(() => webhookFields(json(body), update)).toThrow(field);
  });

  it("update: the mask names the proto's fields the body sets, null being unset", () => {
    expect(updateMask(webhookFields(json('{}'), update))).toEqual([]);
    expect(updateMask(webhookFields(json('{"url":null,"active":null,"eventTypes":null}'), update))).toEqual(
      [],
    );
    expect(
      updateMask(
        webhookFields(json('{"url":"https://e.com","eventTypes":[],"active":true,"description":""}'), update),
      ),
    ).toEqual(['url', 'event_types', 'active', 'description']);
    expect(updateMask(webhookFields(json('{"active":true}'), update))).toEqual(['active']);
  });
});
