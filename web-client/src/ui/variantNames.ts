/** The variants' names in the player's language (the catalogues' `variant.*` keys). */

import { type MessageKey, t } from '../i18n';
import { type GameVariant, type VariantName, gameVariant } from '../engine/variants';

const NAMES: Record<VariantName, MessageKey> = {
  backgammon: 'variant.backgammon',
  nackgammon: 'variant.nackgammon',
  hypergammon: 'variant.hypergammon',
  portes: 'variant.portes',
  plakoto: 'variant.plakoto',
  fevga: 'variant.fevga',
  tavli: 'variant.tavli',
};

/** A variant's name, e.g. "Plakoto". */
export function variantName(name: VariantName): string {
  return t(NAMES[name]);
}

/** What game `gameNo` of a match under `name` is called: "Plakoto", or "Tavli: Plakoto". */
export function gameName(name: VariantName, gameNo: number): string {
  const game: GameVariant = gameVariant(name, gameNo);
  return name === 'tavli' ? t('variant.tavliGame', { game: variantName(game) }) : variantName(game);
}
