import { loadWebhooksProto, type webhooks } from '@flowboard/proto';
import { DomainError, unary, type GrpcServiceRegistration, type Logger } from '@flowboard/service-kit';
import { Calls } from './calls';

type Webhook = webhooks.Webhook__Output;
type Delivery = webhooks.Delivery__Output;

/** The event types the fake takes (the real service knows all of @flowboard/events' list). */
const KNOWN_TYPES = new Set(['story.created', 'story.moved', 'task.deleted']);
const NOW = '2026-11-24T10:00:00';

/**
 * An in-memory webhooks service: the rules the gateway's answers depend on (404 across projects, 400 for a bad
 * URL or event type, FAILED_PRECONDITION while inactive), nothing of deliveries but their log. Its own rules (SSRF,
 * secrets, retries) are tested in services/webhooks and end to end.
 */
export class FakeWebhooks {
  readonly calls = new Calls();
  readonly webhooks = new Map<number, Webhook>();
  readonly deliveries = new Map<number, Delivery[]>();
  /** The last request of each method, as the gateway sent it. */
  readonly lastRequest = new Map<string, unknown>();
  /** Answers ListDeliveries as a release before cursor paging: the keyset ignored, none answered. */
  keysetless = false;
  private nextId = 500;

  /** A delivery in a webhook's log (newest first), as the dispatcher would have left it. */
  addDelivery(webhookId: number, over: Partial<Delivery> = {}): Delivery {
    const delivery: Delivery = {
      id: ++this.nextId,
      webhook_id: webhookId,
      event_id: `00000000-0000-4000-8000-${String(this.nextId).padStart(12, '0')}`,
      event_type: 'story.created',
      attempt: 1,
      status: 'failed',
      response_status_code: 500,
      latency_ms: 12,
      error: 'HTTP 500',
      attempted_at: NOW,
      next_attempt_at: '',
      created_at: NOW,
      attempts: [
        {
          attempt: 1,
          status: 'failed',
          response_status_code: 500,
          latency_ms: 12,
          error: 'HTTP 500',
          attempted_at: NOW,
        },
      ],
      ...over,
    };
    this.deliveries.set(webhookId, [delivery, ...(this.deliveries.get(webhookId) ?? [])]);
    return delivery;
  }

  registration(logger: Logger): GrpcServiceRegistration {
    const { WebhooksService } = loadWebhooksProto().flowboard.webhooks.v1;
    const h = <Req, Res>(name: string, fn: (req: Req) => Promise<Res>) =>
      unary<Req, Res>(logger, async (req, ctx) => {
        this.calls.record(name, ctx);
        this.lastRequest.set(name, req);
        return fn(req);
      });
    const implementation: webhooks.WebhooksServiceHandlers = {
      CreateWebhook: h('CreateWebhook', async (req: webhooks.CreateWebhookRequest__Output) => {
        const webhook: Webhook = {
          id: ++this.nextId,
          project_id: req.project_id,
          url: checkUrl(req.url),
          event_types: checkTypes(req.event_types),
          active: req.active,
          description: req.description.trim(),
          disabled_reason: '',
          created_at: NOW,
          updated_at: NOW,
        };
        this.webhooks.set(webhook.id, webhook);
        return { webhook, secret: `whsec_${Buffer.alloc(32, webhook.id).toString('base64')}` };
      }),
      ListWebhooks: h('ListWebhooks', async (req: webhooks.ListWebhooksRequest__Output) => ({
        webhooks: [...this.webhooks.values()].filter((w) => w.project_id === req.project_id),
      })),
      GetWebhook: h('GetWebhook', async (req: webhooks.GetWebhookRequest__Output) => ({
        webhook: this.find(req),
      })),
      UpdateWebhook: h('UpdateWebhook', async (req: webhooks.UpdateWebhookRequest__Output) => {
        const webhook = this.find(req);
        const mask = new Set(req.update_mask);
        if (mask.has('url')) webhook.url = checkUrl(req.url);
        if (mask.has('event_types')) webhook.event_types = checkTypes(req.event_types);
        if (mask.has('description')) webhook.description = req.description.trim();
        if (mask.has('active')) {
          if (req.active && !webhook.active) webhook.disabled_reason = '';
          webhook.active = req.active;
        }
        webhook.updated_at = '2026-11-24T11:00:00';
        return { webhook };
      }),
      DeleteWebhook: h('DeleteWebhook', async (req: webhooks.DeleteWebhookRequest__Output) => {
        this.webhooks.delete(this.find(req).id);
        return {};
      }),
      ListDeliveries: h('ListDeliveries', async (req: webhooks.ListDeliveriesRequest__Output) => {
        this.find(req);
        if (req.page_size > 100) throw new DomainError('InvalidArgument', "Invalid 'pageSize': 1 to 100.");
        const all = this.deliveries.get(req.webhook_id) ?? [];
        if (req.keyset && !this.keysetless) {
          const rest = all.filter((d) => d.id > req.keyset!.after_id).sort((a, b) => a.id - b.id);
          const deliveries = rest.slice(0, req.page_size);
          return { deliveries, total_items: all.length, keyset: { more: rest.length > deliveries.length } };
        }
        const start = (req.page - 1) * req.page_size;
        return { deliveries: all.slice(start, start + req.page_size), total_items: all.length };
      }),
      RedeliverDelivery: h('RedeliverDelivery', async (req: webhooks.RedeliverDeliveryRequest__Output) => {
        const webhook = this.find(req);
        const original = (this.deliveries.get(webhook.id) ?? []).find((d) => d.id === req.delivery_id);
        if (!original) throw new DomainError('NotFound', 'Delivery not found.');
        if (!webhook.active) throw new DomainError('FailedPrecondition', 'The webhook is not active.');
        const delivery = this.addDelivery(webhook.id, {
          event_id: original.event_id,
          event_type: original.event_type,
          attempt: 0,
          status: 'pending',
          response_status_code: 0,
          latency_ms: 0,
          error: '',
          attempted_at: '',
          next_attempt_at: NOW,
          attempts: [],
        });
        return { delivery };
      }),
      PingWebhook: h('PingWebhook', async (req: webhooks.PingWebhookRequest__Output) => {
        const webhook = this.find(req);
        if (!webhook.active) throw new DomainError('FailedPrecondition', 'The webhook is not active.');
        return { delivery_id: this.addDelivery(webhook.id, { event_type: 'webhook.ping' }).id };
      }),
    };
    return {
      name: 'flowboard.webhooks.v1.WebhooksService',
      definition: WebhooksService.service,
      implementation,
    };
  }

  private find(req: { project_id: number; webhook_id: number }): Webhook {
    const webhook = this.webhooks.get(req.webhook_id);
    if (!webhook || webhook.project_id !== req.project_id)
      throw new DomainError('NotFound', 'Webhook not found.');
    return webhook;
  }
}

function checkUrl(url: string): string {
  if (!/^https?:\/\//i.test(url.trim()))
    throw new DomainError('InvalidArgument', 'The webhook URL must use http or https.');
  return url.trim();
}

function checkTypes(types: string[]): string[] {
  const unknown = types.filter((type) => !KNOWN_TYPES.has(type));
  if (unknown.length) throw new DomainError('InvalidArgument', `Unknown event type: ${unknown.join(', ')}.`);
  return types;
}
