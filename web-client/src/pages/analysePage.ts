/**
 * The analysis board at `/analyse`: a position set by gnubg Position ID (+ Match ID for score
 * and cube), by XGID, or edited checker by checker; the dice (none: the cube decision) and the
 * ply; every play ranked by the server (`POST /api/analyse`, net/analyseApi.ts) with its equity,
 * loss and chances, or the cube decision with its doubling window. A click on a play shows the
 * position after it on the board, its checker moves drawn as arrows. The address (`#pid=…&mid=…&dice=31&ply=2` or `#xgid=…`)
 * always names what is shown, so a copied link reproduces it; the replay board links here with
 * the position of its turn.
 */


import { AnalyseError, type AnalyseRequest, type BoardAnalysisDoc, type CubeDoc, type RankedPlayDoc, analyse } from '../net/analyseApi';
import { decodePositionId, encodePositionId } from '../engine/positionId';
import { type BoardState, xgidOf } from '../engine/xgid';
import { type Board, type Position, startPosition } from '../engine/position';
import { type Move, legalPlays } from '../engine/movegen';
import { BoardApp } from '../ui/app';
import { button, h } from '../ui/dom';
import type { GameSource, GameView } from '../view/gameView';
import { linkField } from './common';
import { ltr, t } from '../i18n';
import { RolloutPanel, eq, pct } from './rolloutPanel';
import { generalRefusal, refusalText } from '../net/refusals';
import { fetchRollout, startRollout } from '../net/rolloutApi';
import { type BoardQuery, START_ID, hashOf, queryFromHash } from '../view/boardQuery';

function requestOf(q: BoardQuery): AnalyseRequest {
  const base = q.xgid ? { xgid: q.xgid } : { position_id: q.pid ?? START_ID, ...(q.mid ? { match_id: q.mid } : {}) };
  return { ...base, ...(q.dice ? { dice: q.dice } : {}), ply: q.ply };
}

/** Cube and score for the board, from the answer's XGID (seen by the player on roll). */
function cubeOf(xgid: string): { value: number; owner: 0 | 1 | null; score: [number, number]; length: number } {
  const f = xgid.replace(/^XGID=/, '').split(':');
  const turn = Number(f[3]) === -1 ? -1 : 1;
  const owner = Number(f[2]);
  const mine = turn === 1 ? Number(f[5]) : Number(f[6]);
  const theirs = turn === 1 ? Number(f[6]) : Number(f[5]);
  return { value: 2 ** (Number(f[1]) || 0), owner: owner === 0 ? null : owner === turn ? 0 : 1, score: [mine || 0, theirs || 0], length: Number(f[8]) || 0 };
}


export function startAnalysePage(root: HTMLElement): void {
  root.classList.add('fg-app', 'analyse-page');
  let query = queryFromHash(location.hash);
  let position: Position = safeDecode(query.pid) ?? startPosition();
  let answer: BoardAnalysisDoc | null = null;
  let chosen: number | null = null;
  const listeners = new Set<(v: GameView) => void>();
  const noop = () => undefined;
  const source: GameSource = {
    current: () => viewOf(position, query, answer, chosen),
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    roll: noop, double: noop, take: noop, drop: noop, play: noop, resign: noop, acceptResign: noop, rejectResign: noop, next: noop,
  };
  const app = new BoardApp(root, source, { title: 'fairgammon', home: '/' });
  app.headerExtra.append(h('span', { class: 'badge analyse-badge', text: t('nav.analyse') }));

  // The form.
  const pidIn = h('input', { type: 'text', class: 'an-pid', 'aria-label': t('analyse.pid'), spellcheck: 'false', placeholder: START_ID });
  const midIn = h('input', { type: 'text', class: 'an-mid', 'aria-label': t('analyse.midOptional'), spellcheck: 'false', placeholder: t('analyse.midPlaceholder') });
  const xgidIn = h('input', { type: 'text', class: 'an-xgid', 'aria-label': t('analyse.xgidLabel'), spellcheck: 'false', placeholder: 'XGID=…' });
  const die = (cls: string, label: string) => {
    const s = h('select', { class: cls, 'aria-label': label }, h('option', { value: '', text: '–' }));
    for (let d = 1; d <= 6; d++) s.append(h('option', { value: String(d), text: String(d) }));
    return s;
  };
  const d1 = die('an-d1', t('analyse.die1'));
  const d2 = die('an-d2', t('analyse.die2'));
  const plySel = h('select', { class: 'an-ply', 'aria-label': t('analyse.ply') });
  for (const p of [1, 2, 3]) plySel.append(h('option', { value: String(p), text: t('analyse.plyOption', { ply: p, queued: p === 3 ? 'yes' : 'no' }) }));
  const go = button(t('analyse.go'), 'btn primary an-go');
  const status = h('p', { class: 'an-status', 'aria-live': 'polite' });
  const results = h('div', { class: 'an-results' });
  const share = h('div', { class: 'an-share' });
  const field = (label: string, input: HTMLElement) => h('label', { class: 'an-field' }, h('span', { class: 'flabel', text: label }), input);
  const form = h(
    'section',
    { class: 'an-form card', 'aria-label': t('analyse.position') },
    field(t('analyse.pid'), pidIn),
    field(t('analyse.mid'), midIn),
    field(t('analyse.orXgid'), xgidIn),
    h('div', { class: 'an-row' }, field(t('analyse.dice'), h('span', { class: 'an-dice' }, d1, d2)), field(t('analyse.depth'), plySel), go),
    status,
  );
  const editNote = h('p', { class: 'an-edit-note', 'aria-live': 'polite' });
  const editor = buildEditor();
  const rollout = new RolloutPanel();
  const trialsSel = h('select', { class: 'ro-trials', 'aria-label': t('analyse.trials') });
  for (const n of [36, 144, 324, 1296]) trialsSel.append(h('option', { value: String(n), text: t('analyse.trialsOption', { n }) }));
  trialsSel.value = '324';
  const truncSel = h('select', { class: 'ro-trunc', 'aria-label': t('analyse.length') }, h('option', { value: '0', text: t('analyse.toEnd') }), h('option', { value: '7', text: t('analyse.truncated', { n: 7 }) }));
  const rollBtn = button(t('analyse.rollOut'), 'btn ro-start');
  const rollNote = h('p', { class: 'ro-note', 'aria-live': 'polite' });
  const roller = h(
    'section',
    { class: 'card an-roller', 'aria-label': t('analyse.rollOut') },
    h('div', { class: 'an-row' }, rollBtn, trialsSel, truncSel),
    h('p', { class: 'ro-help', text: t('analyse.rollHelp') }),
    rollNote,
  );
  rollBtn.addEventListener('click', () => void roll());
  app.sideMain.append(form, results, roller, rollout.el, editor, share);

  async function roll(): Promise<void> {
    if (!answer) return;
    const play = answer.cube ? null : answer.plays[chosen ?? 0];
    if (!answer.cube && !play) return void (rollNote.textContent = t('analyse.noPlay'));
    const base = query.xgid ? { xgid: query.xgid } : { position_id: answer.position_id, ...(query.mid ? { match_id: query.mid } : {}) };
    rollBtn.disabled = true;
    rollNote.textContent = '';
    try {
      const id = await startRollout({
        ...base,
        ...(play && answer.dice ? { dice: answer.dice, play: play.position_id } : {}),
        trials: Number(trialsSel.value),
        truncation: Number(truncSel.value),
      });
      rollout.show(id, play ? play.play : null);
      history.replaceState(null, '', `/analyse${hashOf(query)}&rollout=${id}`);
    } catch (err) {
      rollNote.textContent = err instanceof AnalyseError ? refusalText(err.code, err.message) : generalRefusal();
    } finally {
      rollBtn.disabled = false;
    }
  }

  function fillForm(): void {
    pidIn.value = query.xgid ? '' : (query.pid ?? START_ID);
    midIn.value = query.xgid ? '' : (query.mid ?? '');
    xgidIn.value = query.xgid ?? '';
    d1.value = query.dice ? String(query.dice[0]) : '';
    d2.value = query.dice ? String(query.dice[1]) : '';
    plySel.value = String(query.ply);
  }

  function readForm(): BoardQuery {
    const dice = d1.value && d2.value ? ([Number(d1.value), Number(d2.value)] as const) : null;
    const ply = Number(plySel.value) as 1 | 2 | 3;
    const xgid = xgidIn.value.trim();
    if (xgid) return { pid: null, mid: null, xgid, dice, ply };
    return { pid: pidIn.value.trim() || START_ID, mid: midIn.value.trim() || null, xgid: null, dice, ply };
  }

  const publish = () => {
    const view = source.current();
    for (const l of listeners) l(view);
  };

  function showShare(): void {
    history.replaceState(null, '', `/analyse${hashOf(query)}`);
    share.replaceChildren(linkField(t('analyse.link'), `${location.origin}/analyse${hashOf(query)}`, 'analyselink'));
  }

  let asked = 0;
  async function run(): Promise<void> {
    query = readForm();
    if (!query.xgid) edited = null; // IDs typed in: their cube and score from now on
    const mine = ++asked;
    answer = null;
    chosen = null;
    results.replaceChildren();
    status.textContent = query.ply === 3 ? t('analyse.queued') : t('analyse.analysing');
    status.className = 'an-status';
    go.disabled = true;
    showShare();
    try {
      const got = await analyse(requestOf(query), () => {
        if (mine === asked) status.textContent = t('analyse.queued3');
      });
      if (mine !== asked) return;
      answer = got;
      position = decodePositionId(got.position_id);
      status.textContent = t('analyse.done', { ply: got.ply });
      renderResults(got);
    } catch (err) {
      if (mine !== asked) return;
      status.className = 'an-status error';
      status.textContent = err instanceof AnalyseError ? refusalText(err.code, err.message) : generalRefusal();
      const p = query.xgid ? null : safeDecode(query.pid);
      if (p) position = p;
    } finally {
      if (mine === asked) go.disabled = false;
      publish();
    }
  }

  function renderResults(got: BoardAnalysisDoc): void {
    if (got.cube) {
      results.replaceChildren(cubeTable(got.cube));
      return;
    }
    if (got.passes) {
      results.replaceChildren(h('p', { class: 'an-none', text: t('analyse.noLegal') }));
      return;
    }
    const list = h('ol', { class: 'an-plays', 'aria-label': t('analyse.plays') });
    got.plays.forEach((p, i) => list.append(playRow(p, i)));
    results.replaceChildren(list);
  }

  function playRow(p: RankedPlayDoc, i: number): HTMLElement {
    const row = h(
      'button',
      { type: 'button', class: 'an-play', 'aria-pressed': 'false', 'data-rank': String(i + 1) },
      h('span', { class: 'an-rank', text: t('analyse.rank', { n: i + 1 }) }),
      h('span', { class: 'an-text', text: ltr(p.play) }),
      h('span', { class: 'an-eq', text: eq(p.equity) }),
      h('span', { class: 'an-loss', text: i === 0 ? '' : eq(p.loss === null ? null : -p.loss) }),
      h('span', { class: 'an-chances', text: t('analyse.chances', { win: pct(p.win), gammon: pct(p.gammon), backgammon: pct(p.backgammon), lose: pct(p.lose_gammon), ply: p.ply }) }),
    );
    row.addEventListener('click', () => {
      chosen = chosen === i ? null : i;
      for (const b of results.querySelectorAll('.an-play')) b.setAttribute('aria-pressed', String(b === row && chosen === i));
      publish();
    });
    return row;
  }

  function cubeTable(c: CubeDoc): HTMLElement {
    const rows: [string, string][] = [
      [t('analyse.rightAction'), c.pending ? t('analyse.doubleMade', { answer: c.answer }) : c.available ? (c.action ? t('analyse.action', { action: c.action }) : '–') : t('analyse.cubeUnavailable')],
      [t('analyse.theirAnswer'), t('analyse.answer', { answer: c.answer })],
      [t('analyse.noDouble'), eq(c.no_double)],
      [t('analyse.doubleTake'), eq(c.double_take)],
      [t('analyse.doublePass'), eq(c.double_pass)],
      [t('analyse.equity'), eq(c.equity)],
      [t('analyse.winChances'), t('analyse.three', { a: pct(c.win), b: pct(c.gammon), c: pct(c.backgammon) })],
      [t('analyse.loseChances'), t('analyse.two', { a: pct(c.lose_gammon), b: pct(c.lose_backgammon) })],
    ];
    if (c.window) rows.push([t('analyse.window'), t('analyse.windowValue', { double: pct(c.window.double), cash: pct(c.window.cash), tooGood: pct(c.window.too_good) })]);
    const table = h('table', { class: 'an-cube', 'aria-label': t('analyse.cubeDecision') });
    for (const [k, v] of rows) table.append(h('tr', {}, h('th', { text: k }), h('td', { text: v })));
    return h('section', { class: 'card an-cube-card' }, h('h2', { text: t('analyse.cubeTitle', { ply: c.ply }) }), table);
  }

  // The cube and score set in the editor (null: as the IDs say). Once set, edits of the
  // position keep them: the position is then written as an XGID.
  let edited: BoardState | null = null;

  function buildStateRow(): HTMLElement[] {
    const sel = (cls: string, label: string, options: [string, string][]) => {
      const s = h('select', { class: cls, 'aria-label': label });
      for (const [value, text] of options) s.append(h('option', { value, text }));
      return s;
    };
    const cube = sel('an-cube-value', t('analyse.cube'), [1, 2, 4, 8, 16, 32, 64].map((v) => [String(v), t('analyse.cubeValue', { value: v })]));
    const owner = sel('an-owner', t('analyse.owner'), [['', t('analyse.centred')], ['mover', t('analyse.ownerMover')], ['opponent', t('analyse.ownerOpponent')]]);
    const length = sel('an-length', t('analyse.matchLength'), [['0', t('analyse.money')], ...Array.from({ length: 25 }, (_, i): [string, string] => [String(i + 1), t('options.match', { length: i + 1 })])]);
    const score = (cls: string, label: string) => h('input', { type: 'number', class: cls, 'aria-label': label, min: '0', max: '24', value: '0', inputmode: 'numeric' });
    const mine = score('an-score-mine', t('analyse.scoreMine'));
    const theirs = score('an-score-theirs', t('analyse.scoreTheirs'));
    const crawford = h('input', { type: 'checkbox', class: 'an-crawford', 'aria-label': t('analyse.crawfordGame') });
    const note = h('p', { class: 'an-state-note', 'aria-live': 'polite' });
    const set = button(t('analyse.setState'), 'btn ghost an-set-state');
    set.addEventListener('click', () => {
      const n = Number(length.value);
      const a = Math.max(0, Math.floor(Number(mine.value) || 0));
      const b = Math.max(0, Math.floor(Number(theirs.value) || 0));
      if (n && (a >= n || b >= n)) return void (note.textContent = t('analyse.scoreBelow', { n }));
      if (crawford.checked && !(n > 1 && (a === n - 1 || b === n - 1))) return void (note.textContent = t('analyse.crawfordWhen'));
      const value = Number(cube.value);
      if (crawford.checked && value > 1) return void (note.textContent = t('analyse.crawfordCube'));
      const who = owner.value === 'mover' ? 'mover' : owner.value === 'opponent' ? 'opponent' : null;
      if (value > 1 && who === null) return void (note.textContent = t('analyse.ownerNeeded'));
      edited = { cube: value, owner: value > 1 ? who : null, length: n, score: n ? [a, b] : [0, 0], crawford: crawford.checked };
      note.textContent = '';
      setPosition(position);
    });
    return [
      h('div', { class: 'an-row' }, cube, owner),
      h('div', { class: 'an-row' }, length, h('span', { class: 'an-check', text: t('analyse.score') }), mine, theirs, h('label', { class: 'an-check' }, crawford, h('span', { text: t('board.crawford') })), set),
      note,
    ];
  }

  function buildEditor(): HTMLElement {
    const point = h('select', { class: 'an-point', 'aria-label': t('analyse.point') }, h('option', { value: '25', text: t('analyse.bar') }));
    for (let p = 24; p >= 1; p--) point.append(h('option', { value: String(p), text: t('analyse.pointN', { n: p }) }));
    const note = editNote;
    const edit = (who: 'mover' | 'opponent', delta: 1 | -1) => () => {
      const p = Number(point.value);
      const slot = who === 'mover' ? p : p === 25 ? 25 : 25 - p;
      const mine = [...position.mover];
      const theirs = [...position.opponent];
      const board = who === 'mover' ? mine : theirs;
      const other = who === 'mover' ? theirs : mine;
      const otherSlot = p === 25 ? -1 : 25 - slot;
      if (delta > 0 && board[0]! === 0) return void (note.textContent = t('analyse.noneLeft'));
      if (delta < 0 && board[slot]! === 0) return void (note.textContent = t('analyse.noChecker'));
      if (delta > 0 && otherSlot > 0 && other[otherSlot]! > 0) return void (note.textContent = t('analyse.held'));
      board[slot] = board[slot]! + delta;
      board[0] = board[0]! - delta;
      setPosition({ mover: mine, opponent: theirs });
      note.textContent = t('analyse.borneOff', { mine: mine[0] ?? 0, theirs: theirs[0] ?? 0 });
    };
    const b = (label: string, cls: string, f: () => void) => {
      const x = button(label, `btn ghost ${cls}`);
      x.addEventListener('click', f);
      return x;
    };
    return h(
      'details',
      { class: 'an-editor card' },
      h('summary', { text: t('analyse.edit') }),
      h(
        'div',
        { class: 'an-row' },
        point,
        b(t('analyse.addMine'), 'an-add-mine', edit('mover', 1)),
        b(t('analyse.delMine'), 'an-del-mine', edit('mover', -1)),
        b(t('analyse.addTheirs'), 'an-add-theirs', edit('opponent', 1)),
        b(t('analyse.delTheirs'), 'an-del-theirs', edit('opponent', -1)),
      ),
      h(
        'div',
        { class: 'an-row' },
        b(t('analyse.start'), 'an-start', () => setPosition(startPosition())),
        b(t('analyse.clear'), 'an-clear', () => setPosition({ mover: offBoard(), opponent: offBoard() })),
        b(t('analyse.swap'), 'an-swap', () => {
          // The cube and the scores change sides with the player on roll.
          if (edited) {
            const owner = edited.owner === 'mover' ? 'opponent' : edited.owner === 'opponent' ? 'mover' : null;
            edited = { ...edited, owner, score: [edited.score[1], edited.score[0]] };
          }
          setPosition({ mover: position.opponent, opponent: position.mover });
        }),
      ),
      note,
      ...buildStateRow(),
    );
  }

  // Dragging a checker on the board (pointer events: mouse, touch and pen): from a point, the
  // bar or the tray to a point, the bar or the tray (a tray checker dropped on a point is put
  // back on the board). The buttons above remain the accessible way to do the same.
  const slotUnder = (x: number, y: number): number | null => {
    for (const el of document.elementsFromPoint(x, y)) {
      const p = (el as Element).getAttribute?.('data-point');
      if (p) return Number(p);
      if (el.classList?.contains('barwood')) return 25;
      if (el.classList?.contains('tray')) return 0;
    }
    return null;
  };
  let dragging: { side: 'mover' | 'opponent'; from: number } | null = null;
  root.addEventListener('pointerdown', (e) => {
    const checker = document.elementsFromPoint(e.clientX, e.clientY).map((el) => el.closest('.checker')).find((c) => c);
    const from = checker ? slotUnder(e.clientX, e.clientY) : null;
    if (!checker || from === null) return;
    dragging = { side: checker.classList.contains('s0') ? 'mover' : 'opponent', from };
  });
  root.addEventListener('pointerup', (e) => {
    const drag = dragging;
    dragging = null;
    const to = drag ? slotUnder(e.clientX, e.clientY) : null;
    if (!drag || to === null || to === drag.from) return;
    const moved = dragChecker(position, drag.side, drag.from, to);
    if (typeof moved === 'string') return void (editNote.textContent = moved);
    setPosition(moved);
    editNote.textContent = t('analyse.borneOff', { mine: moved.mover[0] ?? 0, theirs: moved.opponent[0] ?? 0 });
  });

  function setPosition(p: Position): void {
    position = p;
    answer = null;
    chosen = null;
    results.replaceChildren();
    if (edited) {
      xgidIn.value = xgidOf(p, edited);
      pidIn.value = '';
      midIn.value = '';
    } else {
      xgidIn.value = '';
      pidIn.value = encodePositionId(p);
    }
    query = readForm();
    status.className = 'an-status';
    status.textContent = t('analyse.edited');
    showShare();
    publish();
  }

  go.addEventListener('click', () => void run());
  for (const input of [pidIn, midIn, xgidIn]) input.addEventListener('keydown', (e) => e.key === 'Enter' && void run());
  // The address: a rollout's link (its position, analysed, and the rollout followed), or a
  // position's.
  const load = () => {
    const shared = new URLSearchParams(location.hash.replace(/^#/, '')).get('rollout');
    query = queryFromHash(location.hash);
    if (!shared || !/^[0-9a-f]{24}$/.test(shared)) {
      rollout.stop();
      fillForm();
      return void run();
    }
    void fetchRollout(shared)
      .then((doc) => {
        const s = doc.spec;
        query = { pid: s.xgid ? null : s.position_id, mid: s.match_id, xgid: s.xgid, dice: s.dice, ply: 1 };
        rollout.show(shared, null);
      })
      .catch(() => undefined)
      .then(() => {
        fillForm();
        return run();
      });
  };
  addEventListener('hashchange', load);
  load();
  Object.assign(window, { fairgammon: { analyse: { answer: () => answer, chosen: () => chosen, rollout: () => rollout.last } } });
}

/**
 * The position after dragging one checker of `side` from `from` to `to` (points 1..24 in the
 * mover's numbering as drawn, 25 the bar, 0 the tray), or why not.
 */
export function dragChecker(position: Position, side: 'mover' | 'opponent', from: number, to: number): Position | string {
  const slot = (p: number) => (side === 'mover' || p === 0 || p === 25 ? p : 25 - p);
  const mine = [...(side === 'mover' ? position.mover : position.opponent)];
  const other = side === 'mover' ? position.opponent : position.mover;
  const a = slot(from);
  const b = slot(to);
  if (!(mine[a]! > 0)) return t('analyse.noChecker');
  if (b >= 1 && b <= 24 && other[25 - b]! > 0) return t('analyse.held');
  mine[a] = mine[a]! - 1;
  mine[b] = mine[b]! + 1;
  return side === 'mover' ? { mover: mine, opponent: position.opponent } : { mover: position.mover, opponent: mine };
}

function offBoard(): Board {
  return [15, ...Array<number>(25).fill(0)];
}

function safeDecode(pid: string | null): Position | null {
  try {
    return pid ? decodePositionId(pid) : null;
  } catch {
    return null;
  }
}

/** The checker moves of the play of `dice` from `position` that leads to `after` (a Position ID
 * seen by the mover, as the server ranks plays), for the board's arrows; null if none does. */
export function movesOf(position: Position, dice: readonly [number, number], after: string): readonly Move[] | null {
  for (const p of legalPlays(position, dice[0], dice[1])) if (encodePositionId(p.position) === after) return p.moves;
  return null;
}

function viewOf(position: Position, q: BoardQuery, answer: BoardAnalysisDoc | null, chosen: number | null): GameView {
  const cube = answer ? cubeOf(answer.xgid) : { value: 1, owner: null, score: [0, 0] as [number, number], length: 0 };
  const play = answer && chosen !== null ? answer.plays[chosen] : undefined;
  const dice = answer?.dice ?? q.dice;
  let boards: readonly [Board, Board] = [position.mover, position.opponent];
  let moves: readonly Move[] | null = null;
  if (play) {
    const after = decodePositionId(play.position_id);
    boards = [after.mover, after.opponent];
    moves = dice ? movesOf(position, dice, play.position_id) : null;
  }
  return {
    viewer: null,
    players: [
      { name: t('analyse.onRoll'), presence: 'online', forfeitAt: null },
      { name: t('analyse.opponent'), presence: 'online', forfeitAt: null },
    ],
    boards,
    turn: 0,
    phase: dice ? 'moving' : 'decide',
    dice: dice ? { k: 0, values: [dice[0], dice[1]], seat: 0, check: 'unverified' } : null,
    cube: { value: cube.value, owner: cube.owner, enabled: true },
    match: { kind: cube.length ? 'match' : 'money', length: cube.length, score: cube.score, crawford: false, gameNo: 1 },
    clocks: [
      { deadline: null, budgetMs: 0, reserve: null },
      { deadline: null, budgetMs: 0, reserve: null },
    ],
    offer: null,
    lastPlay: moves && moves.length ? { seat: 0, moves } : null, // drawn as arrows
    result: null,
    notice: null,
    fairness: null,
    spectators: 0,
    pending: false,
    version: 0,
    status: play ? t('analyse.after', { play: ltr(play.play), equity: eq(play.equity) }) : dice ? t('analyse.toPlay', { dice: ltr(`${dice[0]}-${dice[1]}`) }) : t('analyse.cubeDecision'),
  };
}
