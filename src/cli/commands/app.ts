import { parseDeepLink, type ShimAnswer, seatDeepLink } from '../../shared/contract/app';
import { fail } from '../../shared/errors';
import { type CommandTable, prepare } from './types';

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
      return { ok: true, prepared: prepare('open', { link }, (r) => `${r.seat}: focused in ${r.windows} window(s)`) };
    },
  },
  prompts: {
    usage: 'prompts [--rig R]            seats waiting for you now (permission prompts, questions, limits)',
    toRequest: (a) => ({
      ok: true,
      prepared: prepare('prompts.list', typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {}, (r) =>
        r.prompts.length === 0
          ? '(nothing waits for you)'
          : r.prompts
              .map((p) =>
                [
                  `${p.seat}: needs input: ${p.reason}${p.choices.length ? ` (rigdesk answer ${p.seat} ${p.choices.join('|')}${p.fingerprint ? ` --prompt=${p.fingerprint}` : ''})` : ''}${p.note ? ` — ${p.note}` : ''}`,
                  ...p.screen.map((l) => `    ${l}`),
                ].join('\n'),
              )
              .join('\n'),
      ),
    }),
  },
  answer: {
    usage:
      "answer <member@rig> <approve|allow-always|deny|N|other> [--message M] [--prompt=FP] [--reason R]  answer a prompt (recorded): deny --message M refuses and says what to do instead; N picks a question's option N; other --message M answers it in your words",
    toRequest: (a) => {
      const [seat, choice] = a.positionals;
      if (!seat || !choice)
        return fail('BAD_USAGE', 'answer needs a seat and approve or deny', {
          hint: 'rigdesk prompts lists what waits.',
        });
      const named = { approve: 'approve', 'allow-always': 'allow_always', deny: 'deny', other: 'other' } as const;
      const option = /^[1-9]\d?$/.test(choice) ? Number(choice) : undefined;
      if (!Object.hasOwn(named, choice) && option === undefined)
        return fail(
          'BAD_USAGE',
          `answer takes approve, allow-always, deny, an option number or other, not ${choice.slice(0, 40)}`,
        );
      const message = typeof a.flags.message === 'string' ? a.flags.message : undefined;
      if (a.flags.message === true) return fail('BAD_USAGE', '--message needs the text to type');
      if (message !== undefined && choice !== 'deny' && choice !== 'other')
        return fail('BAD_USAGE', '--message goes with deny or other');
      if (choice === 'other' && message === undefined)
        return fail('BAD_USAGE', 'other needs --message with your answer');
      const reason =
        typeof a.flags.reason === 'string'
          ? a.flags.reason
          : a.flags.reason === true && a.positionals.length > 2
            ? a.positionals.slice(2).join(' ')
            : undefined;
      const picked = option !== undefined ? ('option' as const) : named[choice as keyof typeof named];
      const params = {
        seat,
        choice: picked === 'deny' && message !== undefined ? ('deny_with_message' as const) : picked,
        ...(message !== undefined ? { message } : {}),
        ...(option !== undefined ? { option } : {}),
        by: 'rigdesk answer',
        ...(typeof a.flags.prompt === 'string' ? { fingerprint: a.flags.prompt } : {}),
        ...(reason ? { reason } : {}),
      } as const;
      return {
        ok: true,
        prepared: prepare(
          'prompts.answer',
          params,
          ({ answered: x }) =>
            `${x.seat}: ${x.choice.replace(/_/g, ' ')} sent (${x.keys.join(' ')}) to ${x.paneId}${x.message ? `; message delivered (${x.message.chars} characters)` : ''}`,
        ),
      };
    },
  },
  'install-shim': {
    usage: 'install-shim [--dir D] [--remove] [--plan]  put the rigdesk command on PATH (~/.local/bin), or take it off',
    toRequest: (a) => {
      // --dir is not one of the parser's value flags: take `--dir=D` or `--dir D` (a positional).
      const dir = typeof a.flags.dir === 'string' ? a.flags.dir : a.flags.dir === true ? a.positionals[0] : undefined;
      if (a.flags.dir === true && !dir) return fail('BAD_USAGE', '--dir needs a folder');
      const params = {
        ...(dir ? { dir } : {}),
        ...(a.flags.remove ? { remove: true } : {}),
        ...(a.flags.plan ? { plan: true } : {}),
      };
      return { ok: true, prepared: prepare('shim.install', params, ({ shim }) => shimText(shim)) };
    },
  },
  topology: {
    usage: 'topology [--rig R]           rigs, pods, seats and edges',
    toRequest: (a) => ({
      ok: true,
      prepared: prepare('topology', typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {}, (r) =>
        r.rigs
          .map((rig) =>
            [
              `${rig.name}`,
              ...rig.pods.map((p) => `  ${p.id}: ${p.seats.map((s) => s.seat).join(', ')}`),
              ...rig.edges.map((e) => `  ${e.from} -${e.kind}-> ${e.to}`),
            ].join('\n'),
          )
          .join('\n'),
      ),
    }),
  },
};

const SHIM_DID: Record<ShimAnswer['action'], string> = {
  installed: 'installed',
  updated: 'updated',
  unchanged: 'already installed',
  removed: 'removed',
  absent: 'not installed (nothing to remove)',
  would_install: 'would install',
  would_remove: 'would remove',
};

function shimText(s: ShimAnswer): string {
  const lines = [`rigdesk shim ${SHIM_DID[s.action]}: ${s.path}`];
  if (!['removed', 'absent', 'would_remove'].includes(s.action)) {
    lines.push(
      `  runs: ${s.runtime.exec}${s.runtime.kind === 'app' ? " (the app's own runtime, ELECTRON_RUN_AS_NODE)" : ''}`,
      `  remove it with: ${s.remove}`,
    );
    if (s.pathHint) lines.push(`  ${s.pathHint}`);
  }
  return lines.join('\n');
}
