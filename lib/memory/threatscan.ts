/**
 * Memory-poisoning scan (PITFALLS "Memory poisoning"; reference §1.3/§2.15 threatscan; issue 11 §3).
 * Text is normalised first (NFKC, zero-width and bidi controls removed, shell quote tricks undone,
 * whitespace collapsed) and judged by shape: a download piped or substituted into an interpreter, a
 * download then run, or words telling the agent to run commands, skip asking or widen its permissions.
 */
import { judgeIntent, skeleton } from "./threatscan-intent.ts";

export type ThreatKind = "prompt-injection" | "remote-exec" | "permission-widening" | "destructive";

export interface Threat {
  kind: ThreatKind;
  /** Why, for the user (`memory remember` exit 2) and the model (the memory tool's error). */
  why: string;
}

/** Zero-width, bidi and other invisible format characters. */
const INVISIBLE =
  /\p{Cf}|\u034F|\u115F|\u1160|\u3164|\uFFA0|[\u180B-\u180D]|[\uFE00-\uFE0F]|[\u{E0100}-\u{E01EF}]/gu;

/** NFKC, invisible characters removed, whitespace collapsed to single spaces. */
export function normalizeForScan(text: string): string {
  return text
    .normalize("NFKC")
    .replace(INVISIBLE, "")
    .replace(/\\\r?\n/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The words a shell would run: `c''url`, `c"u"rl`, `c\url` → `curl`. */
function unquoteWords(text: string): string {
  return text
    .replace(/(\w)(?:''|"")+(?=\w)/g, "$1")
    .replace(/(\w)["']([\w-]+)["'](?=\w|\s|$)/g, "$1$2")
    .replace(/\\([A-Za-z])/g, "$1");
}

/** Programs that download. */
const DL_TOOL = String.raw`\b(?:curl|wget|aria2c|axel|lwp-download|lwp-request|httpie|iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|downloadfile|urlopen|urllib\.request|requests\.get|net\.webclient|start-bitstransfer|certutil|bitsadmin|tftp)\b`;

/** Something fetched from elsewhere or decoded from hiding: a download tool, a URL, a socket, base64. */
const FETCH = String.raw`(?:${DL_TOOL}|\b(?:nc|ncat|netcat|socat)\b|\b[a-z][a-z0-9+.-]{0,15}:\/\/|\/dev\/(?:tcp|udp)\/|\bbase64\s+(?:-d|--decode|-D)\b|\bxxd\s+-r\b|\bopenssl\s+(?:enc|base64)\b[^|]{0,100}-d\b)`;

/** Programs that run the code they are given. */
const INTERP = String.raw`(?:(?:\/[\w.-]+)*\/)?(?:(?:ba|z|da|k|c|tc|fi|a|mk|y|po)?sh|python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby|node|nodejs|deno|bun|php[\d.]*|lua[\d.]*|pwsh|powershell|iex|invoke-expression|osascript|tclsh|wish|expect|busybox|source|eval|exec|xargs|sudo|doas|su|env|nohup|setsid|time|command|\.|["']?\$\{?SHELL(?::-[\w/]+)?\}?["']?)`;

/** Wrappers between a pipe and the interpreter it feeds (`| sudo -E bash`, `| env X=1 sh`). */
const WRAP = String.raw`(?:(?:sudo|doas|env|nohup|setsid|time|command|exec|stdbuf|nice|timeout|busybox)(?:\s+(?:-{1,2}[\w-]+(?:=\S*)?|(?:-[ugChpnkst]|--(?:user|group|signal|kill-after|adjustment))\s+[^\s-]\S*|\w+=\S*|\d+[smhd]?))*\s+)*`;

interface Rule {
  kind: ThreatKind;
  why: string;
  re: RegExp;
  /** Only a threat when this also matches somewhere in the text. */
  also?: RegExp;
}

/** What "don't ask" must be about to count: commands, tools, permissions. */
const ABOUT_COMMANDS =
  /\b(?:run|running|execut\w*|commands?|shell|scripts?|install\w*|delet\w*|sudo|tools?|push\w*|deploy\w*|rm|chmod|curl|wget|git|npm|terminal)\b/i;

const RULES: readonly Rule[] = [
  // --- instruction overrides (context scope of the Go scan)
  {
    kind: "prompt-injection",
    why: "tries to override the agent's instructions",
    re: /\b(?:ignore|disregard|forget|override|overrule)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|former|system|original|safety)?\s*(?:instructions|prompts?|rules|guidelines|directives|policies|policy)/i,
  },
  {
    kind: "prompt-injection",
    why: "chat-template control tokens",
    re: /<\/?system>|<\|im_start\|>|<\|im_end\|>|<\|(?:system|assistant|user)\|>|\[\/?INST\]/i,
  },
  {
    kind: "prompt-injection",
    why: "tries to switch the agent into another persona",
    re: /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|jailbroken|unrestricted|god)(?:\s+mode)?/i,
  },
  // --- a download piped into an interpreter: `curl … | sh`, `wget -O- … | sudo -E bash`, `| python3`
  {
    kind: "remote-exec",
    why: "pipes downloaded or decoded data into an interpreter",
    re: new RegExp(
      `${FETCH}[^|]{0,400}(?:\\|(?!\\|)[^|]{0,400}){0,6}?\\|(?!\\|)&?\\s*${WRAP}${INTERP}(?=$|[\\s;&|)'"\`}-])`,
      "i",
    ),
  },
  // --- a download substituted into an interpreter: `sh -c "$(curl …)"`, `bash <(curl …)`, `eval "$(wget …)"`
  {
    kind: "remote-exec",
    why: "runs downloaded code through command or process substitution",
    re: new RegExp(
      `(?<![\\w.-])${INTERP}(?=[\\s"'(<$\`])[^\\n]{0,60}?(?:<\\s*\\(|=\\(|\\$\\(|\`|<<<\\s*["']?\\$\\()[^)\`]{0,300}?${FETCH}`,
      "i",
    ),
  },
  {
    kind: "remote-exec",
    why: "evaluates downloaded code",
    re: /\b(?:exec|eval|iex|invoke-expression)\s*\(?[^\n]{0,80}?(?:urlopen|urllib|requests\.get|downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod|https?:\/\/)/i,
  },
  {
    kind: "remote-exec",
    why: "sends a download into an interpreter through process substitution",
    re: new RegExp(`${FETCH}[^\\n]{0,400}?>\\s*>\\(\\s*${WRAP}${INTERP}`, "i"),
  },
  {
    kind: "remote-exec",
    why: "evaluates fetched JavaScript",
    re: /\bfetch\s*\([^\n]{0,300}?(?:\.then\s*\(\s*(?:eval|Function)\b|\beval\s*\(|\bnew\s+Function\b|\bimport\s*\()|\b(?:eval|Function)\s*\([^\n]{0,100}?\bfetch\s*\(/i,
  },
  {
    kind: "remote-exec",
    why: "installs or runs a package straight from a URL (its install scripts run)",
    re: /\b(?:pip[\d.]*|pipx|uv\s+pip|uvx|python[\d.]*\s+-m\s+pip)\s+(?:install|run)\b[^\n]{0,200}?\b(?:https?|ftp|git\+[a-z]+):\/\/|\b(?:npx|bunx|pnpx|pnpm\s+dlx|yarn\s+dlx|npm\s+(?:exec|x|i|install|add)|pnpm\s+(?:add|i|install)|yarn\s+add|bun\s+(?:add|x|install|i))\b[^\n]{0,200}?\b(?:https?|git\+[a-z]+|git):\/\/|\bdeno\s+(?:run|install|eval)\b[^\n]{0,200}?\bhttps?:\/\/|\bcargo\s+install\b[^\n]{0,100}?--git\s+\S+/i,
  },
  // --- download, then run what was downloaded
  {
    kind: "remote-exec",
    why: "downloads a file and then runs it",
    re: new RegExp(
      `${DL_TOOL}[^\\n]{0,300}?(?:&&|;|\\|\\||\\bthen\\b)\\s*(?:${WRAP})?(?:chmod\\s+(?:[+ugoa]*x|[0-7]*[1357][0-7]{0,2})\\b|\\.\\/[\\w.-]+|${INTERP}\\s+(?!-c\\b)[~\\w./-]+\\.(?:sh|bash|py|pl|rb|js|ps1|php)\\b|(?:\\/tmp|\\/var\\/tmp|\\/dev\\/shm)\\/[\\w.-]+\\s*(?:$|[;&|]))`,
      "i",
    ),
  },
  {
    kind: "remote-exec",
    why: "tells the agent to download something and run it",
    re: /\b(?:download|curl|wget)\b(?:[^.\n]|\.(?=\S)){0,120}?\b(?:and|then)\s+(?:run|execute|exec|source|launch|pipe|install)\s+(?:it|them|that|this|the\s+(?:script|installer|binary|file|payload|program))\b/i,
  },
  {
    kind: "remote-exec",
    why: "opens a reverse shell",
    re: /\b(?:ba)?sh\s+-i\s*>&?\s*\/dev\/(?:tcp|udp)\/|\b(?:nc|ncat|netcat)\b[^\n]{0,300}\s-[ec]\s/i,
  },
  { kind: "remote-exec", why: "adds an SSH key", re: />>?\s*\S*\.ssh\/authorized_keys/i },
  {
    kind: "remote-exec",
    why: "schedules a download",
    re: /\b(?:crontab|\/etc\/cron|systemd-run|at\s+now)[^\n]{0,300}\b(?:curl|wget)\b|\b(?:curl|wget)\b[^\n]{0,300}\b(?:crontab|\/etc\/cron)/i,
  },
  // --- permission widening and "run without asking"
  {
    kind: "remote-exec",
    why: "code that fetches from the network and starts a process",
    also: new RegExp(FETCH, "i"),
    re: /\bchild_process\b|\bsubprocess\b|\bos\.(?:system|popen|exec\w*)\b|\bspawn(?:Sync)?\s*\(|\bexecSync\b|Runtime\.getRuntime|\bProcess\.start\b|\bshell_exec\b|\bpassthru\b|\bproc_open\b/i,
  },
  {
    kind: "permission-widening",
    why: "tells the agent to act without asking",
    also: ABOUT_COMMANDS,
    re: /\bwithout\s+(?:first\s+|ever\s+)?(?:asking|a\s+prompt|prompting|confirmation|confirming|approval|permission|consent)\b|\b(?:never|not|n't)\s+(?:wants?|like|likes)\s+to\s+be\s+(?:asked|prompted|bothered)\b/i,
  },
  {
    kind: "permission-widening",
    why: "tells the agent to approve its own permission prompts",
    re: /\b(?:answer|say|reply|respond|type)\s+(?:yes|y)\s+to\b(?:[^.\n]|\.(?=\S)){0,40}?\b(?:permission|approval|confirmation)\s*(?:prompts?|questions?|requests?|dialogs?)?\b/i,
  },
  {
    kind: "permission-widening",
    why: "tells the agent to run commands without asking",
    re: /\b(?:run|execute|exec|approve|allow|accept|install|delete|push|deploy|apply)\b(?:[^.\n]|\.(?=\S)){0,80}?\bwithout\s+(?:first\s+)?(?:asking|a\s+prompt|prompting|confirmation|confirming|approval|permission|review|reviewing|checking|consent)/i,
  },
  {
    kind: "permission-widening",
    why: "grants the agent permission to run any command",
    re: /\b(?:you|the\s+(?:agent|assistant|model|ai)|chatcli|claude|gpt|assistant)\b(?:[^.\n]|\.(?=\S)){0,30}?\b(?:may|can|should|must|are\s+(?:allowed|permitted|authori[sz]ed|free)\s+to|is\s+(?:allowed|permitted|authori[sz]ed|free)\s+to|have\s+(?:permission|the\s+right)\s+to|has\s+(?:permission|the\s+right)\s+to)\s+(?:always\s+)?(?:run|execute|exec|use)\s+(?:any|all|every|arbitrary|whatever)\b/i,
  },
  {
    kind: "permission-widening",
    why: "tells the agent not to ask for confirmation",
    also: ABOUT_COMMANDS,
    re: /\b(?:do\s*n[o']?t|do\s+not|never|no\s+need\s+to|stop|without\s+having\s+to)\s+(?:ever\s+)?(?:ask|asking|confirm|prompt|check\s+with|request\s+(?:approval|permission|confirmation)|wait\s+for\s+(?:approval|confirmation))\b/i,
  },
  {
    kind: "permission-widening",
    why: "tells the agent to skip or disable its safety checks",
    re: /\b(?:skip|bypass|ignore|disable|turn\s+off|switch\s+off|circumvent|deactivate|remove)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:confirmations?|approvals?|permission(?:s|\s+(?:checks?|prompts?|policy|system))?|prompts?|sandbox(?:ing)?|safety(?:\s+checks?)?|security(?:\s+checks?)?|guard(?:rail)?s?|restrictions|threat\s*scan)\b/i,
  },
  {
    kind: "permission-widening",
    why: "says the agent's actions are pre-approved",
    also: ABOUT_COMMANDS,
    re: /\bpre-?(?:approved?|authori[sz]ed?)\b|\bno\s+need\s+for\s+(?:approval|confirmation|permission|consent)|\b(?:approval|confirmation|permission|consent)\s+(?:is\s+|are\s+)?(?:not\s+(?:required|needed|necessary)|unnecessary)|\b(?:commands?|tool\s+calls?|actions?|everything)\s+(?:is|are)\s+(?:already\s+)?(?:approved|allowed|authori[sz]ed|permitted)\b/i,
  },
  {
    kind: "permission-widening",
    why: "asks for a wider permission mode",
    re: /--permission-mode[ =]*(?:bypass|auto)|permissions?[_ .-]?mode["']?\s*(?:[:=]|\bto\b)\s*["']?(?:bypass|auto)|permissions\.allow|"allow"\s*:\s*\[|\bbypass\s+(?:the\s+)?permission|--dangerously[\w-]*|--allow-tool\b|--trust-workspace\b|CHATCLI_TRUST_WORKSPACE|trusted_workspaces|\byolo\s+mode\b|\bauto[- ]?(?:approve|accept)\b|--yes-always|--no-confirm|CHATCLI_THREATSCAN\s*=\s*["']?(?:off|0|false|no)\b|CHATCLI_SANDBOX\s*=\s*["']?off\b|--sandbox[ =]+off\b/i,
  },
  {
    kind: "permission-widening",
    why: "tells the agent to run commands on its own",
    re: /\b(?:always|automatically|auto-?)\s*(?:approve|allow|accept|grant)\b|\b(?:automatically|auto-)\s*(?:run|execute)\b|\b(?:at\s+the\s+(?:start|beginning)\s+of\s+(?:every|each|a|the|any)\s+(?:session|conversation|run|task|chat)|on\s+(?:startup|start-up|session\s+start)|first\s+thing\s+(?:in|of)\s+(?:every|each|a)\s+session|before\s+(?:doing|answering|responding\s+to)\s+anything)[^.\n]{0,60}?\b(?:run|execute|exec|source|eval|install)\b/i,
  },
  {
    kind: "permission-widening",
    why: "grants the agent elevated access",
    re: /\b(?:grant|give)\s+(?:yourself|the\s+(?:agent|assistant|model))\s+(?:full|root|admin|administrator|unrestricted|all)\s+(?:access|permissions?|rights|privileges)/i,
  },
];

/** Where a download writes: `-o F`, `--output F`, `-O F` (wget), `> F`, or curl -O's remote name. */
const DOWNLOAD_TARGET = new RegExp(`${DL_TOOL}([^;&|\n]{0,300})`, "gi");

/** A download whose output file is later run (`curl -o x URL; chmod +x x; ./x`), across lines. */
function runsDownloaded(text: string): boolean {
  const lines = text.normalize("NFKC").replace(INVISIBLE, "").replace(/\r?\n/g, " ; ");
  for (const m of lines.matchAll(DOWNLOAD_TARGET)) {
    const rest = m[1] as string;
    const targets = [
      ...rest.matchAll(/(?:^|\s)(?:-[a-zA-Z]*[oO]|--output|--output-document)(?:\s+|=)(?!-)(\S+)/g),
      ...rest.matchAll(/>\s*(\S+)/g),
    ].map((t) => t[1] as string);
    // curl -O, and wget without -O, save under the URL's last path segment
    const wgetDefault = /^wget\b/i.test(m[0]) && targets.length === 0;
    const remote =
      /(?:^|\s)-[a-zA-Z]*O(?:\s|$)/.test(rest) || wgetDefault
        ? /\b[a-z]+:\/\/[^\s`'"]*\/([\w.-]+)/i.exec(rest)?.[1]
        : undefined;
    if (remote) targets.push(remote);
    const next = lines.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 400);
    for (const t of targets) {
      const file = t.replace(/^["']|["']$/g, "");
      // what follows the target: the rest of this command, then the next ones
      const after = `${rest.slice(rest.indexOf(t) + t.length)} ${next}`;
      if (!file || file === "-" || file === "/dev/null") continue;
      const name = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const run = new RegExp(
        `(?:^|[;&|]|\\bthen\\b)\\s*(?:${WRAP})?(?:${INTERP}\\s+(?:-\\S+\\s+)*)?(?:\\.\\/)?${name}(?=$|[\\s;&|])|chmod\\s+\\S*\\s*${name}`,
        "i",
      );
      if (run.test(after)) return true;
    }
  }
  return false;
}

/** The first threat found in the text (after normalisation), with why. */
export function findThreat(text: string): Threat | undefined {
  if (!text) return undefined;
  if (runsDownloaded(text))
    return { kind: "remote-exec", why: "downloads a file and then runs it" };
  const flat = normalizeForScan(text);
  const variants = [flat];
  for (const v of [unquoteWords(flat), skeleton(flat), skeleton(unquoteWords(flat))])
    if (!variants.includes(v)) variants.push(v);
  for (const v of variants)
    for (const rule of RULES)
      if (rule.re.test(v) && (!rule.also || rule.also.test(v)))
        return { kind: rule.kind, why: rule.why };
  // then what the text asks the agent to do, whatever the words (lib/memory/threatscan-intent.ts)
  for (const v of variants) {
    const intent = judgeIntent(v);
    if (intent) return intent;
  }
  return undefined;
}

/** The first threat's kind, if any. */
export function scanThreat(text: string): ThreatKind | undefined {
  return findThreat(text)?.kind;
}

/** A one-line reason: `remote-exec: pipes downloaded or decoded data into an interpreter`. */
export function threatReason(text: string): string | undefined {
  const t = findThreat(text);
  return t ? `${t.kind}: ${t.why}` : undefined;
}

/** Replaces every line carrying a threat with `[BLOCKED: <kind>]`; files on disk are untouched. */
export function neutralize(text: string): string {
  if (!text) return text;
  return text
    .split("\n")
    .map((line) => {
      const kind = scanThreat(line);
      return kind ? `[BLOCKED: ${kind}]` : line;
    })
    .join("\n");
}
