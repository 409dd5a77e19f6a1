/**
 * Checks the TypeScript fair dice against a file in the format of the project's shared vectors
 * (protocol/fairdice/vectors/fairdice-v1.json, written by the Python implementation). Every
 * section is optional, so the same checker also runs on the local hashlib fixture.
 */

import {
  RollVerifier,
  buildChain,
  chainLink,
  deriveDice,
  diceBlock,
  fromHex,
  rollOffWinner,
  rollSeed,
  sampleDice,
  toHex,
} from '../src/fairdice';

type Hex = string;
interface Ctx {
  match_id: Hex;
  game_no: number;
  seat: 0 | 1;
}
interface RollRow {
  k: number;
  reveal0: Hex;
  reveal1: Hex;
  d1: number;
  d2: number;
  tie?: boolean;
  chain1?: 'old' | 'new';
}

export interface SharedVectors {
  chain_steps?: { cases: (Ctx & { i: number; link: Hex; previous: Hex })[] };
  chains?: { cases: (Ctx & { secret: Hex; length: number; links: { i: number; link: Hex }[] })[] };
  rolls?: { cases: { match_id: Hex; game_no: number; k: number; reveal0: Hex; reveal1: Hex; seed: Hex; blocks: Hex[]; d1: number; d2: number }[] };
  blocks?: { cases: { seed: Hex; ctr: number; block: Hex }[] };
  sampler?: { cases: { blocks: Hex[]; d1: number; d2: number }[] };
  rolloff?: {
    match_id: Hex;
    game_no: number;
    commitment0: Hex;
    commitment1: Hex;
    rolls: RollRow[];
    winner: 0 | 1;
    first_play: { k: number; seat: 0 | 1; d1: number; d2: number };
  };
  recommitment?: {
    match_id: Hex;
    game_no: number;
    seat: 0 | 1;
    applies_from: number;
    old_commitment: Hex;
    seat0_commitment: Hex;
    recommitment: Hex;
    rolls: RollRow[];
  };
}

/** Every mismatch found (empty = the implementations agree); `counts` says what was checked. */
export async function checkShared(v: SharedVectors): Promise<{ failures: string[]; counts: Record<string, number> }> {
  const failures: string[] = [];
  const counts: Record<string, number> = {};
  const count = (what: string) => (counts[what] = (counts[what] ?? 0) + 1);
  const ctxOf = (c: Ctx) => ({ matchId: fromHex(c.match_id), gameNo: c.game_no, seat: c.seat });

  for (const c of v.chain_steps?.cases ?? []) {
    const got = toHex(await chainLink(ctxOf(c), c.i, fromHex(c.link)));
    if (got !== c.previous) failures.push(`chain step ${c.i}: ${got}`);
    count('chain_steps');
  }
  for (const c of v.chains?.cases ?? []) {
    const chain = await buildChain(ctxOf(c), fromHex(c.secret), c.length);
    for (const { i, link } of c.links) if (toHex(chain[i]!) !== link) failures.push(`chain link ${i} of ${c.secret.slice(0, 8)}`);
    count('chains');
  }
  for (const c of v.rolls?.cases ?? []) {
    const seed = await rollSeed(fromHex(c.match_id), c.game_no, c.k, fromHex(c.reveal0), fromHex(c.reveal1));
    if (toHex(seed) !== c.seed) failures.push(`roll seed k=${c.k}`);
    const dice = await deriveDice(fromHex(c.match_id), c.game_no, c.k, fromHex(c.reveal0), fromHex(c.reveal1));
    if (dice[0] !== c.d1 || dice[1] !== c.d2) failures.push(`roll dice k=${c.k}: ${dice}`);
    for (const [ctr, block] of c.blocks.entries()) {
      if (toHex(await diceBlock(seed, ctr)) !== block) failures.push(`roll block k=${c.k} ctr=${ctr}`);
    }
    count('rolls');
  }
  for (const c of v.blocks?.cases ?? []) {
    if (toHex(await diceBlock(fromHex(c.seed), c.ctr)) !== c.block) failures.push(`block ctr=${c.ctr}`);
    count('blocks');
  }
  for (const c of v.sampler?.cases ?? []) {
    const dice = sampleDice(c.blocks.map(fromHex));
    if (!dice || dice[0] !== c.d1 || dice[1] !== c.d2) failures.push(`sampler ${c.blocks[0]?.slice(0, 8)}: ${dice}`);
    count('sampler');
  }
  const follow = async (
    matchId: Hex,
    gameNo: number,
    commitments: [Hex, Hex],
    rolls: RollRow[],
    recommit?: { seat: 0 | 1; from: number; value: Hex },
  ) => {
    const verifier = new RollVerifier(fromHex(matchId), gameNo, [fromHex(commitments[0]), fromHex(commitments[1])]);
    for (const r of rolls) {
      if (recommit && r.k === recommit.from) verifier.recommit(recommit.seat, fromHex(recommit.value));
      const result = await verifier.check(r.k, [fromHex(r.reveal0), fromHex(r.reveal1)], [r.d1, r.d2]);
      if (!result.ok) failures.push(`game ${gameNo} roll ${r.k}: ${result.reason}`);
      count('verified rolls');
    }
  };
  const ro = v.rolloff;
  if (ro) {
    await follow(ro.match_id, ro.game_no, [ro.commitment0, ro.commitment1], ro.rolls);
    const decisive = ro.rolls.find((r) => rollOffWinner(r.d1, r.d2) !== null);
    for (const r of ro.rolls) if ((rollOffWinner(r.d1, r.d2) === null) !== !!r.tie) failures.push(`roll-off tie flag k=${r.k}`);
    if (!decisive || rollOffWinner(decisive.d1, decisive.d2) !== ro.winner) failures.push('roll-off winner');
    if (decisive && (decisive.k !== ro.first_play.k || ro.first_play.seat !== ro.winner)) failures.push('roll-off first play');
    count('rolloff');
  }
  const rc = v.recommitment;
  if (rc) {
    const commitments: [Hex, Hex] = rc.seat === 1 ? [rc.seat0_commitment, rc.old_commitment] : [rc.old_commitment, rc.seat0_commitment];
    await follow(rc.match_id, rc.game_no, commitments, rc.rolls, { seat: rc.seat, from: rc.applies_from, value: rc.recommitment });
    count('recommitment');
  }
  return { failures, counts };
}
