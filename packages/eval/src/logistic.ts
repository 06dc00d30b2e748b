/**
 * L2-regularised logistic regression by Newton's method (IRLS): a few dozen
 * features and a few thousand examples, deterministic, no dependency. The
 * features are standardised first and the standardisation is part of the model.
 */
export interface Example {
  readonly x: readonly number[];
  readonly y: 0 | 1;
  /** Sample weight: each corpus contributes equally, however many questions it has. */
  readonly w: number;
}

export interface LogisticFit {
  readonly mean: readonly number[];
  readonly scale: readonly number[];
  readonly weights: readonly number[];
  readonly bias: number;
}

function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const d = m[c]![c]! || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / d;
      if (f === 0) continue;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / (row[i]! || 1e-12));
}

/**
 * Where Newton's method starts: `start` (a fit of the same features on another set, e.g. every group where this
 * is every group but one) re-expressed on this fit's standardisation, else zero. The objective is strictly
 * convex, so the answer is the same optimum either way (to the stopping tolerance); from a near start it is
 * reached in a few steps rather than ten — the inner fits of leave-one-group-out are most of training's time.
 */
function initial(start: LogisticFit | undefined, mean: readonly number[], scale: readonly number[]): { beta: number[]; bias: number } {
  if (!start) return { beta: mean.map(() => 0), bias: 0 };
  const raw = start.weights.map((w, j) => w / start.scale[j]!);
  return {
    beta: raw.map((r, j) => r * scale[j]!),
    bias: start.bias + raw.reduce((s, r, j) => s + r * (mean[j]! - start.mean[j]!), 0),
  };
}

export function fitLogistic(examples: readonly Example[], lambda: number, iterations = 30, start?: LogisticFit): LogisticFit {
  const d = examples[0]?.x.length ?? 0;
  const totalW = examples.reduce((s, e) => s + e.w, 0) || 1;
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const e of examples) for (let j = 0; j < d; j++) mean[j]! += (e.w * e.x[j]!) / totalW;
  for (const e of examples) for (let j = 0; j < d; j++) scale[j]! += (e.w * (e.x[j]! - mean[j]!) ** 2) / totalW;
  for (let j = 0; j < d; j++) scale[j] = Math.sqrt(scale[j]!) || 1;
  const z = examples.map((e) => [...e.x.map((v, j) => (v - mean[j]!) / scale[j]!), 1]);
  const from = initial(start, mean, scale);
  const beta = [...from.beta, from.bias];
  for (let it = 0; it < iterations; it++) {
    const h = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    const g = new Array<number>(d + 1).fill(0);
    examples.forEach((e, i) => {
      const zi = z[i]!;
      let s = 0;
      for (let j = 0; j <= d; j++) s += beta[j]! * zi[j]!;
      const p = 1 / (1 + Math.exp(-s));
      const wr = e.w * p * (1 - p);
      for (let j = 0; j <= d; j++) {
        g[j]! += e.w * (e.y - p) * zi[j]!;
        if (wr === 0) continue;
        for (let k = j; k <= d; k++) h[j]![k]! += wr * zi[j]! * zi[k]!;
      }
    });
    for (let j = 0; j <= d; j++) for (let k = 0; k < j; k++) h[j]![k] = h[k]![j]!;
    for (let j = 0; j < d; j++) {
      h[j]![j]! += lambda;
      g[j]! -= lambda * beta[j]!;
    }
    const step = solve(h, g);
    let change = 0;
    for (let j = 0; j <= d; j++) {
      beta[j]! += step[j]!;
      change = Math.max(change, Math.abs(step[j]!));
    }
    if (change < 1e-8) break;
  }
  return { mean, scale, weights: beta.slice(0, d), bias: beta[d]! };
}

/** One question's retrieved passages and which of them is its labelled evidence. */
export interface Choice {
  readonly xs: readonly (readonly number[])[];
  readonly gold: number;
  readonly w: number;
}

/**
 * Conditional logit (softmax over one question's passages), L2-regularised, by
 * Newton's method: it learns what sets the answering passage apart from the
 * others retrieved WITH it — the Mitigation section from the same runbook's
 * Impact section — rather than what answerable questions share. No bias: it
 * cancels within a question. Standardised like `fitLogistic`.
 */
export function fitConditionalLogit(choices: readonly Choice[], lambda: number, iterations = 30, start?: LogisticFit): LogisticFit {
  const d = choices.find((c) => c.xs.length)?.xs[0]!.length ?? 0;
  let totalW = 0;
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const c of choices)
    for (const x of c.xs) {
      totalW += c.w;
      for (let j = 0; j < d; j++) mean[j]! += c.w * x[j]!;
    }
  for (let j = 0; j < d; j++) mean[j]! /= totalW || 1;
  for (const c of choices) for (const x of c.xs) for (let j = 0; j < d; j++) scale[j]! += (c.w * (x[j]! - mean[j]!) ** 2) / (totalW || 1);
  for (let j = 0; j < d; j++) scale[j] = Math.sqrt(scale[j]!) || 1;
  const zs = choices.map((c) => c.xs.map((x) => x.map((v, j) => (v - mean[j]!) / scale[j]!)));
  const beta = initial(start, mean, scale).beta;
  for (let it = 0; it < iterations; it++) {
    const h = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    const g = new Array<number>(d).fill(0);
    choices.forEach((c, q) => {
      const z = zs[q]!;
      const s = z.map((zi) => zi.reduce((acc, v, j) => acc + v * beta[j]!, 0));
      const m = Math.max(...s);
      const e = s.map((v) => Math.exp(v - m));
      const sum = e.reduce((a, b) => a + b, 0);
      const p = e.map((v) => v / sum);
      const xbar = new Array<number>(d).fill(0);
      z.forEach((zi, i) => {
        for (let j = 0; j < d; j++) xbar[j]! += p[i]! * zi[j]!;
      });
      for (let j = 0; j < d; j++) g[j]! += c.w * (z[c.gold]![j]! - xbar[j]!);
      z.forEach((zi, i) => {
        for (let j = 0; j < d; j++) {
          const a = c.w * p[i]! * (zi[j]! - xbar[j]!);
          if (a === 0) continue;
          for (let k = j; k < d; k++) h[j]![k]! += a * (zi[k]! - xbar[k]!);
        }
      });
    });
    for (let j = 0; j < d; j++) for (let k = 0; k < j; k++) h[j]![k] = h[k]![j]!;
    for (let j = 0; j < d; j++) {
      h[j]![j]! += lambda;
      g[j]! -= lambda * beta[j]!;
    }
    const step = solve(h, g);
    let change = 0;
    for (let j = 0; j < d; j++) {
      beta[j]! += step[j]!;
      change = Math.max(change, Math.abs(step[j]!));
    }
    if (change < 1e-8) break;
  }
  return { mean, scale, weights: beta, bias: 0 };
}
