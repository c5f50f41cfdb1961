import { uniqueSuffix } from '@flowboard/testing';
import { Load } from './load';
import {
  BACK_ENDS,
  ORDER,
  boardsCallsDuring,
  builds,
  compare,
  finish,
  livePods,
  mixArgs,
  oldPodsGone,
  settledPods,
} from './skew';
import { helmUpgrade, sleep } from './support';

/**
 * Version skew, upgrading: the install phase installed the previous release (every service at the images and
 * versions of contracts/released/SOURCE's commit). Under load, each service is upgraded alone to this tree's build,
 * back ends first (boards, membership, files, webhooks, notifier), then the gateway: so after the back ends, the
 * previous release's gateway serves against this tree's back ends. Each upgrade changes that component's
 * image.tag and version only; only its pods may roll, only its migrations (its `migrate` init container) run, no
 * other pod may restart. The load must see no failure, every invite's e-mail exactly once, no lost write.
 *
 * Also measured: which name boards is called by (its gRPC server metrics count calls per service): the previous
 * gateway calls the pre-split `flowboard.boards.v1.BoardsService` alias, this tree's the six services' own names.
 */
jest.setTimeout(30 * 60_000);

describe('version skew: each service upgraded alone, under load', () => {
  it('upgrades boards, membership, files, webhooks, notifier, then the gateway, one at a time', async () => {
    const { previous, head } = builds();
    const at = new Map(ORDER.map((svc) => [svc, previous.get(svc)!]));
    const start = await livePods();
    for (const svc of ORDER)
      for (const p of start.get(svc)!)
        expect(`${svc} ${p.image.split(':').pop()} ${p.version}`).toBe(
          `${svc} ${previous.get(svc)!.tag} ${previous.get(svc)!.version}`,
        );

    const load = await Load.prepare({ workers: 6, rate: 30, inviteePrefix: `skew-up-${uniqueSuffix()}` });
    load.start();
    await sleep(8_000);
    const figures: string[] = [];
    const problems: string[] = [];
    let oldGatewayCalls: { legacy: number; split: number } | undefined;
    for (const svc of ORDER) {
      if (svc === 'gateway') oldGatewayCalls = await boardsCallsDuring(8_000); // (a) the old gateway, new back ends
      const before = await livePods();
      at.set(svc, head.get(svc)!);
      const t0 = Date.now();
      await helmUpgrade(mixArgs((s) => at.get(s)!));
      const seconds = (Date.now() - t0) / 1000;
      const after = await settledPods(before);
      const change = compare(before, after, [svc], (s) => at.get(s)!);
      figures.push(
        `skew upgrade ${svc} ${previous.get(svc)!.version} → ${head.get(svc)!.version}: ${seconds.toFixed(0)} s; ${change.summary}`,
      );
      problems.push(...change.unexpected.map((u) => `upgrade of ${svc}: ${u}`));
      if (svc === BACK_ENDS[BACK_ENDS.length - 1]) await sleep(5_000);
    }
    await oldPodsGone('gateway');
    const newGatewayCalls = await boardsCallsDuring(8_000);
    await sleep(5_000);
    const verdict = await finish(load, 'skew upgrade');
    console.log(
      [
        ...figures,
        ...verdict.lines,
        `alias BoardsService: previous gateway (${previous.get('gateway')!.version}) against new boards: ` +
          `${oldGatewayCalls!.legacy} calls by the legacy name, ${oldGatewayCalls!.split} by the split names in 8 s`,
        `alias BoardsService: new gateway (${head.get('gateway')!.version}) against new boards: ` +
          `${newGatewayCalls.legacy} calls by the legacy name, ${newGatewayCalls.split} by the split names in 8 s`,
      ].join('\n'),
    );
    expect(problems).toEqual([]);
    expect(verdict.report.failures).toEqual([]);
    expect(verdict.report.failed).toBe(0);
    expect(verdict.report.sent).toBeGreaterThan(500);
    expect(verdict.notOnce).toEqual([]);
    expect(verdict.lost).toEqual([]);
    // The previous gateway calls boards by the alias only when the previous release is from before the split's
    // rename; this tree's gateway must not need it (boards can drop it once no gateway of that release runs).
    expect(newGatewayCalls.legacy).toBe(0);
    expect(newGatewayCalls.split).toBeGreaterThan(0);
  });
});
