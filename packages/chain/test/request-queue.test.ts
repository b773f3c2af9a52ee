import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { RequestQueue } from '../src/rpc/requestQueue.js';

const drained = () => new Promise((r) => setTimeout(r, 20));

describe('RequestQueue', () => {
  it('runs jobs in arrival order', async () => {
    const q = new RequestQueue();
    const ran: number[] = [];
    for (let i = 0; i < 50; i++) q.push(() => ran.push(i));
    await drained();
    expect(ran).toEqual([...Array(50).keys()]);
    expect(q.size).toBe(0);
  });

  it('a job that throws is reported, and the jobs after it still run', async () => {
    const q = new RequestQueue();
    const ran: string[] = [];
    const warned = once(process, 'warning');
    q.push(() => ran.push('a'));
    q.push(() => {
      throw new Error('boom in a job');
    });
    q.push(() => ran.push('c'));
    const [w] = (await warned) as [Error];
    await drained();
    expect(w.message).toBe('boom in a job');
    expect(ran).toEqual(['a', 'c']);
  });

  it('runs nothing while held, and everything once let go', async () => {
    const q = new RequestQueue();
    const ran: number[] = [];
    q.hold(true);
    q.push(() => ran.push(1));
    q.push(() => ran.push(2));
    await drained();
    expect(ran).toEqual([]);
    expect(q.size).toBe(2);
    q.hold(false);
    await drained();
    expect(ran).toEqual([1, 2]);
  });

  it('asks for reading to stop when full, and to resume once half has drained', async () => {
    const pressure: boolean[] = [];
    const q = new RequestQueue((on) => pressure.push(on), 10);
    q.hold(true);
    for (let i = 0; i < 9; i++) q.push(() => {});
    expect(pressure).toEqual([]);
    q.push(() => {});
    q.push(() => {});
    expect(pressure).toEqual([true]);
    q.hold(false);
    await drained();
    expect(q.size).toBe(0);
    expect(pressure).toEqual([true, false]);
  });
});
