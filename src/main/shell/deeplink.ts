import { parseDeepLink } from '../../shared/contract/app';

export const PROTOCOL = 'rigdesk';

/**
 * A deep link arrives in argv (Linux/Windows: first launch and second instance) or through
 * `open-url` (macOS). Only an argument that starts with `rigdesk:` is a candidate, so a file path
 * or flag is never mistaken for one; the candidate must then parse exactly.
 */
export function deepLinkInArgv(argv: readonly string[]): string | undefined {
  return argv.find((a) => a.toLowerCase().startsWith(`${PROTOCOL}:`));
}

export type DeepLinkOutcome = { ok: true; seat: string } | { ok: false; reason: string };

export class DeepLinkRouter {
  readonly refused: { link: string; reason: string }[] = [];
  constructor(
    private readonly seatExists: (seat: string) => boolean,
    private readonly openSeat: (seat: string) => void,
  ) {}

  route(link: string): DeepLinkOutcome {
    const p = parseDeepLink(link);
    const out: DeepLinkOutcome = !p.ok
      ? p
      : this.seatExists(p.seat)
        ? { ok: true, seat: p.seat }
        : { ok: false, reason: `no seat ${p.seat}` };
    if (out.ok) this.openSeat(out.seat);
    else this.refused.push({ link: link.slice(0, 200), reason: out.reason });
    return out;
  }
}
