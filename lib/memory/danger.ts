import { findThreat, normalizeForScan } from "./threatscan.ts";

/**
 * What a fact of unknown origin must not ask (issue 20): fetch-and-run, piping into a shell, acting
 * without asking, treating approval as given, switching a safeguard off, writing a login key or a
 * cron line — in the languages users write memory in. Narrower than the hold test of unverified
 * facts (lib/memory/trust.ts holdReason): a fact the Go ChatCLI wrote is usually the user's, and
 * "the CI needs `make lint` before push" names a command and asks for an action by design. These
 * concepts are what such a fact never legitimately asks.
 */

/** A word a shell would run, with its quotes undone: `'s'h` → `sh`, `c''ur\l` → `curl`. */
function dequoted(text: string): string {
  return text.replace(/[^\s|;&()<>]*['"\\][^\s|;&()<>]*/g, (t) =>
    /[\p{L}]/u.test(t) ? t.replace(/['"\\]/g, "") : t,
  );
}

const W = String.raw`[\p{L}\p{N}_'-]*`;
const word = (heads: string) => new RegExp(String.raw`(?<![\p{L}])(?:${heads})${W}`, "u");

/** Getting something from elsewhere. */
const FETCH = new RegExp(
  [
    word(
      "download|fetch|grab|obtain|retriev|curl|wget|baix|descarg|herunterl|télécharg|telecharg|scaric|скач|загруз",
    ).source,
    String.raw`(?<![\p{L}])lade${W}\s(?:[^.]{0,60}\s)?herunter`,
    "下载|ダウンロード|获取|拉取",
  ].join("|"),
  "u",
);
/** An interpreter's name, as a whole word (`python3` too, not "should" or "nodes"). */
const NAMES = String.raw`(?:bash|zsh|sh|shell|interpreter|python\d*|node|nodejs|powershell|pwsh|perl|ruby)(?![\p{L}])`;
/** Running what it is given (not the plain "run", which every build fact says). */
const RUNS = new RegExp(
  [
    word("exec|interpret|ejecut|ausführ|ausfuhr|exécut|esegu|запуск|запуст|выполн|rode|rodar")
      .source,
    String.raw`(?<![\p{L}])run\s+(?:it|them|that|whatever|what)\b`,
    String.raw`(?<![\p{L}])(?:with|into|to|through|via|using|через|com|con|mit|avec|用)\s+(?:a\s+|an\s+|the\s+)?${NAMES}`,
    // an interpreter used as a command: "step two: sh setup.txt"
    String.raw`(?:^|[;&|:])\s*(?:sudo\s+)?${NAMES}\s+[\w~-]*[./]\w`,
    String.raw`(?:\bthen\s+|\x60)(?:sudo\s+)?${NAMES}\s+[\w./~-]`,
    "执行|运行|実行",
  ].join("|"),
  "u",
);
const URL = /[a-z][a-z0-9+.-]*:\/\/|\b[\w-]+(?:\.[\w-]+)+\/\S/;
const PIPE = new RegExp(
  String.raw`(?<![\p{L}])(?:pipe|feed|hand|pass|stream)${W}\s[^;]{0,100}?(?:into|to|through)\s+(?:a\s+|an\s+|the\s+)?${NAMES}|\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b`,
  "u",
);
const NO_ASK = new RegExp(
  [
    String.raw`\bwithout\s+(?:first\s+)?(?:asking|ask|confirm\w*|approv\w*|permission|prompt\w*|checking|review\w*)`,
    String.raw`\bno\s+need\s+to\s+(?:ask|show|confirm|check|request|prompt|wait)`,
    String.raw`\b(?:don'?t|do\s+not|never)\s+(?:ask|confirm|prompt|wait\w*\s+for)(?!\s+(?:me\s+)?about)`,
    String.raw`\b(?:nada|não|nao)\s+precisa\s+de\s+(?:confirma\w*|aprova\w*|permiss\w*)`,
    String.raw`\bsem\s+(?:pedir|perguntar|confirm\w*|autoriza\w*)`,
    String.raw`\bsin\s+(?:preguntar|pedir|confirm\w*|permiso)`,
    String.raw`\bohne\s+(?:nachfrage|rückfrage|ruckfrage|bestätigung|bestatigung|zu\s+fragen|frage|erlaubnis)`,
    String.raw`\bsans\s+(?:demander|confirm\w*|permission|autorisation)`,
    String.raw`\bsenza\s+(?:chiedere|conferma|permesso)`,
    String.raw`(?<![\p{L}])без\s+(?:подтвержд|спрос|вопрос|разрешен)|не\s+спрашива`,
    "不要询问|无需确认|不用问|不必询问|无需询问|不要确认|不经确认|确认せず|確認せず|確認しない",
  ].join("|"),
  "u",
);
const GRANTED = new RegExp(
  [
    String.raw`\b(?:approv\w*|permission\w*|consent|sign(?:ed)?[- ]off|authori[sz]\w*|confirmation\w*)\s+(?:\w+\s+){0,3}(?:as\s+)?(?:granted|given|implied|assumed|pre-?approved|already|not\s+(?:needed|required))`,
    String.raw`\b(?:treat|consider|assume|regard)\w*\s+(?:\w+\s+){0,4}(?:approv\w*|permission\w*|consent|confirm\w*)`,
    String.raw`\b(?:pre-?approved|already\s+(?:approved|signed\s+off|authori[sz]ed)|auto-?approv\w*)`,
  ].join("|"),
  "u",
);
const SAFEGUARD = word(
  "sandbox|confinement|guardrail|approval|confirmation|песочниц|沙箱|サンドボックス",
);
const OFF = new RegExp(
  [
    word(
      "disabl|bypass|desativ|desabilit|desactiv|deshabilit|deaktivier|abschalt|ausschalt|désactiv|disattiv|отключ|выключ",
    ).source,
    String.raw`\b(?:turn|switch|shut)\w*\s+(?:\w+\s+){0,3}off\b|\b(?:turn|switch|shut)\w*\s+off`,
    "关闭|禁用|停用|無効",
  ].join("|"),
  "u",
);
const LOGIN_FILE = /authorized_keys|sudoers|crontab|\bcron\s+line/;
/** What "without asking" must be about: running things (a merge "without approval" is a description). */
const ACTS = new RegExp(
  [
    word(
      "run|exec|command|comando|befehl|commande|команд|shell|script|install|tool|ausführ|ejecut|exécut|esegu|запуск|выполн|rode|rodar|corr",
    ).source,
    "执行|运行|命令",
  ].join("|"),
  "u",
);
const ANY_COMMAND =
  /any\s+(?:shell\s+)?commands?|qualquer\s+comando|cualquier\s+comando|jeden\s+befehl|alle\s+befehle|toutes\s+les\s+commandes|n'importe\s+quelle\s+commande|qualsiasi\s+comando|любую\s+команду|任何命令|所有命令/u;

/** Why a fact of unknown origin asks the agent to act in a way it never should, or undefined. */
export function dangerReason(content: string): string | undefined {
  const threat = findThreat(content);
  if (threat) return `${threat.kind}: ${threat.why}`;
  const text = normalizeForScan(content).toLowerCase();
  const shell = dequoted(text);
  if (shell !== text) {
    const t = findThreat(shell);
    if (t) return `${t.kind}: ${t.why}`;
  }
  if (FETCH.test(text) && RUNS.test(text)) return "remote-exec: fetches something and runs it";
  if (URL.test(text) && RUNS.test(text)) return "remote-exec: runs what a URL serves";
  if (PIPE.test(shell)) return "remote-exec: pipes something into a shell";
  if (NO_ASK.test(text) && ACTS.test(text)) return "permission-widening: acting without asking";
  if (
    (ANY_COMMAND.test(text) && RUNS.test(text)) ||
    (ANY_COMMAND.test(text) && ACTS.test(text.replace(ANY_COMMAND, "")))
  )
    return "permission-widening: any command";
  if (GRANTED.test(text)) return "permission-widening: treats approval as given";
  if (SAFEGUARD.test(text) && OFF.test(text)) return "permission-widening: turns a safeguard off";
  if (LOGIN_FILE.test(text)) return "permission-widening: writes a login key or a scheduled job";
  return undefined;
}
