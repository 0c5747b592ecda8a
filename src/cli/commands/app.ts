import { parseDeepLink, seatDeepLink, type PromptItem } from '../../shared/contract/app';
import { fail } from '../../shared/errors';
import type { CommandTable } from './types';

/** The window's commands. `open` reaches the window through the same deep-link route. */
export const APP_COMMANDS: CommandTable = {
  open: {
    usage: 'open <member@rig | rigdesk://seat/R/M>  focus that seat in the open Rigdesk window',
    toRequest: (a) => {
      const target = a.positionals[0];
      if (!target) return fail('BAD_USAGE', 'open needs a seat (member@rig) or a rigdesk://seat/<rig>/<member> link');
      const link = target.startsWith('rigdesk:') ? target : seatDeepLink(target);
      if (!link || !parseDeepLink(link).ok)
        return fail('SEAT_NAME_INVALID', `not a seat or seat link: ${target.slice(0, 200)}`);
      return { ok: true, method: 'open', params: { link } };
    },
    human: (r) => `${String(r.seat)}: focused in ${String(r.windows)} window(s)`,
  },
  prompts: {
    usage: 'prompts [--rig R]            seats waiting for you now (permission prompts, questions, limits)',
    toRequest: (a) => ({
      ok: true,
      method: 'prompts',
      params: typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {},
    }),
    human: (r) =>
      (r.prompts as PromptItem[])
        .map((p) =>
          [
            `${p.seat}: needs input: ${p.reason}${p.choices.length ? ` (rigdesk answer ${p.seat} ${p.choices.join('|')}${p.fingerprint ? ` --prompt=${p.fingerprint}` : ''})` : ''}${p.note ? ` — ${p.note}` : ''}`,
            ...p.screen.map((l) => `    ${l}`),
          ].join('\n'),
        )
        .join('\n') || '(nothing waits for you)',
  },
  answer: {
    usage: 'answer <member@rig> <approve|deny> [--prompt=FP] [--reason R]  answer a permission prompt (recorded)',
    toRequest: (a) => {
      const [seat, choice] = a.positionals;
      if (!seat || !choice)
        return fail('BAD_USAGE', 'answer needs a seat and approve or deny', {
          hint: 'rigdesk prompts lists what waits.',
        });
      if (choice !== 'approve' && choice !== 'deny')
        return fail('BAD_USAGE', `answer takes approve or deny, not ${choice.slice(0, 40)}`);
      const reason =
        typeof a.flags.reason === 'string'
          ? a.flags.reason
          : a.flags.reason === true && a.positionals.length > 2
            ? a.positionals.slice(2).join(' ')
            : undefined;
      return {
        ok: true,
        method: 'answerPrompt',
        params: {
          seat,
          choice,
          ...(typeof a.flags.prompt === 'string' ? { fingerprint: a.flags.prompt } : {}),
          ...(reason ? { reason } : {}),
        },
      };
    },
    human: (r) => {
      const x = r.answered as { seat: string; choice: string; keys: string[]; paneId: string };
      return `${x.seat}: ${x.choice} sent (${x.keys.join(' ')}) to ${x.paneId}`;
    },
  },
  'install-shim': {
    usage: 'install-shim [--dir D] [--remove] [--plan]  put the rigdesk command on PATH (~/.local/bin), or take it off',
    toRequest: (a) => {
      // --dir is not one of the parser's value flags: take `--dir=D` or `--dir D` (a positional).
      const dir = typeof a.flags.dir === 'string' ? a.flags.dir : a.flags.dir === true ? a.positionals[0] : undefined;
      if (a.flags.dir === true && !dir) return fail('BAD_USAGE', '--dir needs a folder');
      return {
        ok: true,
        method: 'installShim',
        params: {
          ...(dir ? { dir } : {}),
          ...(a.flags.remove ? { remove: true } : {}),
          ...(a.flags.plan ? { plan: true } : {}),
        },
      };
    },
    human: (r) => {
      const s = r.shim as {
        path: string;
        action: string;
        onPath: boolean;
        remove: string;
        pathHint?: string;
        runtime: { kind: string; exec: string };
      };
      const did =
        {
          installed: 'installed',
          updated: 'updated',
          unchanged: 'already installed',
          removed: 'removed',
          absent: 'not installed (nothing to remove)',
          would_install: 'would install',
          would_remove: 'would remove',
        }[s.action] ?? s.action;
      const lines = [`rigdesk shim ${did}: ${s.path}`];
      if (!['removed', 'absent', 'would_remove'].includes(s.action)) {
        lines.push(
          `  runs: ${s.runtime.exec}${s.runtime.kind === 'app' ? " (the app's own runtime, ELECTRON_RUN_AS_NODE)" : ''}`,
          `  remove it with: ${s.remove}`,
        );
        if (s.pathHint) lines.push(`  ${s.pathHint}`);
      }
      return lines.join('\n');
    },
  },
  topology: {
    usage: 'topology [--rig R]           rigs, pods, seats and edges',
    toRequest: (a) => ({
      ok: true,
      method: 'topology',
      params: typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {},
    }),
    human: (r) =>
      (
        r.rigs as {
          name: string;
          pods: { id: string; seats: { seat: string }[] }[];
          edges: { from: string; to: string; kind: string }[];
        }[]
      )
        .map((rig) =>
          [
            `${rig.name}`,
            ...rig.pods.map((p) => `  ${p.id}: ${p.seats.map((s) => s.seat).join(', ')}`),
            ...rig.edges.map((e) => `  ${e.from} -${e.kind}-> ${e.to}`),
          ].join('\n'),
        )
        .join('\n'),
  },
};
