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
import { helmHistory, helmRollback, helmUpgrade, helmValues, sleep, type ImageRef } from './support';

/**
 * Version skew, rolling back, after skew-upgrade left every service at this tree's build. Under load:
 *   1. `helm rollback <release> <revision>` to the revision before the gateway's upgrade: only the gateway's pods
 *      roll, back to the previous release (one service rolled back with helm's own command);
 *   2. the gateway upgraded again (only its pods roll);
 *   3. one `helm upgrade` setting the five back ends to the previous release (each one's rollback, as an operator
 *      writes it in values): the new gateway against the previous back ends; only the back ends' pods roll;
 *   4. everything at this tree's build again, for the phases after this one.
 * Zero failed requests, every e-mail exactly once, no lost write, as in skew-upgrade.
 */
jest.setTimeout(30 * 60_000);

describe('version skew: rolled back, under load', () => {
  it('rolls the gateway back with helm rollback, then the back ends with helm upgrade, then all forward', async () => {
    const { previous, head } = builds();
    const headAt = (s: string) => head.get(s)!;
    // The revision before the gateway's upgrade: the last one with the gateway at the previous release and every back
    // end at this tree's.
    const history = (await helmHistory()).sort((a, b) => b.revision - a.revision);
    let target: number | undefined;
    for (const { revision } of history.slice(1)) {
      const c = (await helmValues(revision)).components ?? {};
      const is = (svc: string, want: ImageRef) => c[svc]?.image?.tag === want.tag;
      if (is('gateway', previous.get('gateway')!) && BACK_ENDS.every((s) => is(s, head.get(s)!))) {
        target = revision;
        break;
      }
    }
    if (target === undefined)
      throw new Error('no revision with only the gateway at the previous release (run skew-upgrade first)');

    const load = await Load.prepare({ workers: 6, rate: 30, inviteePrefix: `skew-back-${uniqueSuffix()}` });
    load.start();
    await sleep(8_000);
    const figures: string[] = [];
    const problems: string[] = [];
    const step = async (
      label: string,
      rolled: string[],
      expectAt: (s: string) => ImageRef,
      action: () => Promise<unknown>,
    ) => {
      const before = await livePods();
      const t0 = Date.now();
      await action();
      const seconds = (Date.now() - t0) / 1000;
      const change = compare(before, await settledPods(before), rolled, expectAt);
      figures.push(`skew ${label}: ${seconds.toFixed(0)} s; ${change.summary}`);
      problems.push(...change.unexpected.map((u) => `${label}: ${u}`));
    };

    const gatewayBack = (s: string) => (s === 'gateway' ? previous.get(s)! : head.get(s)!);
    await step(
      `helm rollback to revision ${target} (gateway → ${previous.get('gateway')!.version})`,
      ['gateway'],
      gatewayBack,
      () => helmRollback(target!),
    );
    await sleep(5_000);
    await step(`gateway upgraded again (→ ${head.get('gateway')!.version})`, ['gateway'], headAt, () =>
      helmUpgrade(mixArgs(headAt)),
    );
    const backEndsBack = (s: string) => (s === 'gateway' ? head.get(s)! : previous.get(s)!);
    await step('back ends → previous release (one helm upgrade)', BACK_ENDS, backEndsBack, () =>
      helmUpgrade(mixArgs(backEndsBack)),
    );
    await oldPodsGone('boards');
    const calls = await boardsCallsDuring(8_000); // (b) the new gateway, previous back ends
    await step('all → this tree', BACK_ENDS, headAt, () => helmUpgrade(mixArgs(headAt)));
    await sleep(5_000);
    const verdict = await finish(load, 'skew back');
    console.log(
      [
        ...figures,
        ...verdict.lines,
        `alias BoardsService: new gateway (${head.get('gateway')!.version}) against previous boards ` +
          `(${previous.get('boards')!.version}): ${calls.legacy} calls by the legacy name, ${calls.split} by the split names in 8 s`,
      ].join('\n'),
    );
    const end = await livePods();
    for (const svc of ORDER)
      for (const p of end.get(svc)!) expect(p.image).toMatch(new RegExp(`:${head.get(svc)!.tag}$`));
    expect(problems).toEqual([]);
    expect(verdict.report.failures).toEqual([]);
    expect(verdict.report.failed).toBe(0);
    expect(verdict.report.sent).toBeGreaterThan(500);
    expect(verdict.notOnce).toEqual([]);
    expect(verdict.lost).toEqual([]);
    expect(calls.legacy).toBe(0);
    expect(calls.split).toBeGreaterThan(0);
  });
});
