/**
 * The live move record on the match page: the session's RecordBook in a MoveRecordPanel, with
 * the turns a snapshot skipped fetched from the server's record of the game, a replay link for
 * each finished game, and after each game its analysis (summary and chart; the record marks
 * that game's mistakes).
 */

import { t as tr } from '../i18n';
import type { MatchSession } from '../net/session';
import { type Mark, MoveRecordPanel, type RecordGame } from '../ui/moveRecord';
import { AnalysisPanel } from './analysisPanel';
import { h } from '../ui/dom';
import { type GameRecordDoc, fetchGameRecord, recordPath } from '../net/recordApi';
import { entriesOf, replayPath } from '../view/replay';

export function liveRecord(session: MatchSession, matchId: string): { el: HTMLElement; render: () => void } {
  const panel = new MoveRecordPanel();
  const links = h('p', { class: 'links replay-links' });
  const after = h('div', { class: 'live-analysis' });
  const el = h('div', { class: 'live-record' }, panel.el, links, after);
  let analysis: { game: number; panel: AnalysisPanel } | null = null;
  const asked = new Set<number>();
  let linkKey = '';
  const render = () => {
    const t = session.tracker;
    const book = session.record;
    for (const game of book.partial.keys()) {
      if (asked.has(game)) continue;
      asked.add(game);
      void fetchGameRecord(recordPath(matchId, game))
        .then((doc: GameRecordDoc) => {
          // The server read its log at doc.v; entries after that come from the events.
          book.fill(game, doc.v, entriesOf(doc));
          render();
        })
        .catch(() => asked.delete(game));
    }
    const names: [string, string] = [t.names[0] ?? tr('common.seatNo', { n: '1' }), t.names[1] ?? tr('common.seatNo', { n: '2' })];
    const numbers = book.gameNumbers();
    const finished = numbers.filter((n) => book.entries(n).some((e) => e.action === 'win'));
    const last = finished[finished.length - 1];
    if (last !== undefined && analysis?.game !== last) {
      // The newest finished game's analysis, from the server's workers.
      analysis?.panel.stop();
      const p = new AnalysisPanel(matchId, last, names, false);
      p.onChange = render;
      analysis = { game: last, panel: p };
      after.replaceChildren(p.el);
      p.start();
    }
    const marksOf = (n: number): Map<number, Mark> | undefined => (analysis?.game === n ? analysis.panel.marks() : undefined);
    const games: RecordGame[] = numbers.map((n) => ({ number: n, label: tr('record.game', { n }), entries: book.entries(n), marks: marksOf(n) }));
    const loading = [...book.partial.keys()].length > 0;
    panel.render({ names, games, note: loading ? tr('record.loadingEarlier') : undefined });
    // Never an empty record: it appears with the first entry (or the earlier turns loading).
    el.hidden = !loading && games.every((g) => g.entries.length === 0);
    const key = finished.join(',');
    if (key !== linkKey) {
      linkKey = key;
      links.replaceChildren(...finished.map((n) => h('a', { class: 'replay-link', href: replayPath(matchId, n), text: tr('record.replayGame', { n }) })));
    }
  };
  return { el, render };
}
