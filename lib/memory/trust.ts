import { stem } from "./stem.ts";
import { STOP_WORDS } from "./text.ts";
import { findThreat, normalizeForScan } from "./threatscan.ts";

/**
 * Whose word a fact is (issue 20, allowlist): a fact is the user's only when it comes from what the
 * user typed or named — `memory remember`, `memory import FILE`, a user turn that supports it.
 * Everything else (the model's memory tool, extraction of what the assistant or a tool said, an MCP
 * client) is unverified: `source: "unverified:<origin>"` in Go's `source` field. Unverified facts
 * that ask the agent to act are held for review (lib/memory/review.ts); descriptive ones are
 * injected only inside a fenced block of notes marked as data.
 */

/** The prefix of an unverified fact's `source`. */
export const UNVERIFIED = "unverified:";

/**
 * Whether a fact's `source` is the user's: none (Go never writes one; `memory remember`), `user`,
 * or `user:<how>` (`user:reviewed`). Older chatcli marks (`tool:…`, `agent`, `mcp:…`) are not.
 */
export function isUserSource(source: unknown): boolean {
  if (source === undefined || source === null || source === "") return true;
  return typeof source === "string" && (source === "user" || source.startsWith("user:"));
}

/** `unverified:<origin>` for an origin (`tool:web_fetch`, `agent`, `mcp:client`), idempotent. */
export function unverifiedSource(origin: string): string {
  return origin.startsWith(UNVERIFIED) ? origin : `${UNVERIFIED}${origin || "agent"}`;
}

// Cyrillic and Greek letters that look like Latin ones: folded before any word test.
const CONFUSABLE: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  і: "i",
  ї: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  ո: "n",
  α: "a",
  β: "b",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
};
/** NFKC, lower case, invisible characters removed. */
function plain(text: string): string {
  return normalizeForScan(text).toLowerCase();
}

/** `plain` with look-alike letters folded to Latin. */
export function folded(text: string): string {
  return [...plain(text)].map((c) => CONFUSABLE[c] ?? c).join("");
}

const SCRIPT = [/\p{Script=Latin}/u, /\p{Script=Cyrillic}/u, /\p{Script=Greek}/u];

/** A word mixing Latin with Cyrillic or Greek letters (a disguised `curl`), if any. */
export function mixedScriptWord(text: string): string | undefined {
  for (const w of plain(text).match(/[\p{L}\p{M}]+/gu) ?? []) {
    if (SCRIPT.filter((re) => re.test(w)).length > 1) return w;
  }
  return undefined;
}

/**
 * Words that make a sentence ask an agent to act or name something to guard, in the languages users
 * write memory in. They are never the only test: a fact is held or unsupported when one of them is
 * present, so a missing word errs towards the fenced notes block, never towards an instruction.
 */
const ACTION_WORDS = new Set(
  // English (imperative and base forms: "the service runs on 8080" describes, "run X" asks)
  (
    "always never must should shall need ensure make sure remember first before prior ask " +
    "run execute exec launch invoke install reinstall download fetch curl wget pip npx send post " +
    "upload email mail contact call ping forward share leak paste disable enable turn switch set " +
    "change configure override bypass skip ignore allow grant approve permit widen sudo root chmod " +
    "chown export source eval pipe bash sh zsh shell powershell script setup.sh token tokens secret " +
    "secrets password passwords credential credentials key keys ssh sandbox permission permissions " +
    "agent agents assistant ai llm you your yourself instead delete remove wipe erase push deploy " +
    "follow obey deny rule rules policy config settings " +
    // Portuguese
    "sempre nunca deve devem precisa precisam garanta lembre execute executar execução rode rodar roda " +
    "instale instalar baixe baixar envie enviar mande mandar desative desativar desabilite desabilitar " +
    "ative ativar configure configurar mude mudar altere alterar ignore ignorar pule pular permita " +
    "permitir conceda antes primeiro você voce agente agentes assistente senha chave segredo apague " +
    // Spanish
    "siempre debe deben debes hay ejecuta ejecutar ejecute corre correr instala instalar descarga " +
    "descargar envía envia enviar manda desactiva desactivar deshabilita deshabilitar activa activar " +
    "configura cambia cambiar ignora omite omitir salta saltar permite concede primero usted tú tu " +
    "contraseña clave borra borrar " +
    // German
    "immer niemals nie muss müssen soll sollen sollte solltest führe führen ausführen starte starten " +
    "installiere installieren lade laden herunterladen sende senden schicke schicken deaktiviere " +
    "deaktivieren abschalten schalte aktiviere ändere ändern ignoriere überspringe erlaube erlauben " +
    "zuerst vorher bevor du dein deine ihr agenten assistent passwort schlüssel lösche löschen " +
    // French, Italian
    "toujours jamais doit devez faut exécute exécuter exécutez lance lancer lancez installe installer " +
    "installez télécharge télécharger envoie envoyer envoyez désactive désactiver désactivez active " +
    "activer modifie modifier autorise autoriser avant abord vous mot passe clé jeton " +
    "mai esegui eseguire installa scarica scaricare invia inviare disattiva disabilita prima " +
    // Russian
    "всегда никогда должен нужно запусти запустить выполни выполнить установи установить скачай " +
    "отправь отправить отключи отключить"
  ).split(" "),
);

/** Action phrases in scripts without spaces (Chinese, Japanese): matched as substrings. */
const ACTION_CJK = [
  "总是",
  "始终",
  "一定",
  "必须",
  "务必",
  "应该",
  "应当",
  "需要",
  "运行",
  "执行",
  "安装",
  "下载",
  "发送",
  "上传",
  "转发",
  "禁用",
  "关闭",
  "停用",
  "打开",
  "修改",
  "更改",
  "设置",
  "配置",
  "先",
  "之前",
  "请",
  "你",
  "代理",
  "助手",
  "密码",
  "令牌",
  "密钥",
  "沙箱",
  "权限",
  "跳过",
  "忽略",
  "删除",
  "必ず",
  "常に",
  "実行",
  "インストール",
  "ダウンロード",
  "送信",
  "無効",
  "先に",
  "してください",
];

/** A command, path to run, flag, URL, host or shell syntax inside the text, if any. */
export function codeShape(text: string): string | undefined {
  const t = folded(text);
  const shapes: Array<[RegExp, string]> = [
    [/[a-z][a-z0-9+.-]*:\/\//, "a URL"],
    [/`/, "a command in backticks"],
    [/(?:^|\s)(?:\.{1,2}|~|\$\w+|\$\{\w+\})\//, "a path to run"],
    [/\$\(|\$\{|\$[a-z_]{2,}/, "shell expansion"],
    [/\|\s*\S|&&|;\s*\w|>\s*>?\s*[\w/(~$]|<\s*\(/, "shell syntax"],
    [/(?:^|\s)--?[a-z][\w-]*/, "a command-line flag"],
    [
      /\b[\w-]+\.(?:sh|bash|zsh|ps1|bat|cmd|exe|py|pl|rb|js|mjs|php|bin|run|app|dmg|pkg|msi)\b/,
      "a script",
    ],
    [/\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|sh|xyz|ru|cn|app|cloud|site|co|me|ai)\b/, "a host"],
    [/\b\d{1,3}(?:\.\d{1,3}){3}\b/, "an address"],
    [/(?:^|[\s("'])\.[a-z][\w.-]*/, "a dotfile"],
  ];
  for (const [re, what] of shapes) if (re.test(t)) return what;
  return undefined;
}

/** The first word of ACTION_WORDS / ACTION_CJK in the text, if any. */
export function actionWord(text: string): string | undefined {
  const t = folded(text);
  for (const w of `${t} ${plain(text)}`.match(/[\p{L}\p{N}_.]+/gu) ?? []) {
    const word = w.replace(/\.+$/, "");
    if (ACTION_WORDS.has(word)) return word;
  }
  for (const p of ACTION_CJK) if (t.includes(p)) return p;
  return undefined;
}

/** Categories that are procedures or instructions by what they are for. */
const ACTING_CATEGORIES = new Set(["gotcha", "pattern", "preference"]);

/**
 * Why an unverified fact is held for review instead of injected, or undefined when it reads as a
 * plain description: the threat scan and intent judge, the category, a disguised word, a command
 * shape, a word that asks an agent to act (any of them holds it).
 */
export function holdReason(content: string, category: string): string | undefined {
  const threat = findThreat(content);
  if (threat) return `${threat.kind}: ${threat.why}`;
  if (ACTING_CATEGORIES.has(category)) return `instruction: category ${category}`;
  const mixed = mixedScriptWord(content);
  if (mixed) return `disguised: "${mixed}" mixes scripts`;
  const shape = codeShape(content);
  if (shape) return `instruction: names ${shape}`;
  const word = actionWord(content);
  if (word) return `instruction: asks an agent to act ("${word}")`;
  return undefined;
}

/** A user turn longer than this is pasted material (a page, a file), not the user's own words. */
export const MAX_USER_TURN = 4000;

const TRAIL = /^[("'“‘[{<]+|[)"'”’\]}>.,;:!?]+$/g;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

interface Tokens {
  code: string[];
  words: string[];
}

function tokens(text: string): Tokens {
  const code: string[] = [];
  const words: string[] = [];
  for (const raw of folded(text).split(/\s+/)) {
    const chunk = raw.replace(TRAIL, "");
    if (!chunk) continue;
    if (/[/\\$|`~=<>{}@:;&]|^-|\w\.\w/.test(chunk)) code.push(chunk);
    for (const run of chunk.match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (CJK.test(run)) {
        const cs = [...run];
        if (cs.length === 1) words.push(run);
        for (let i = 0; i + 1 < cs.length; i++) words.push(`${cs[i]}${cs[i + 1]}`);
      } else if (run.length >= 2 && !STOP_WORDS.has(run) && !SUPPORT_STOP.has(run)) {
        words.push(stem(run));
      }
    }
  }
  return { code, words };
}

/** Words a fact restates its subject with: "User prefers…" from "I prefer…". */
const SUPPORT_STOP = new Set(
  "user user's users usuário usuario usuária utilizador usuarios benutzer nutzer utilisateur utente пользователь we're i'm i've let's please pls remember note keep mind lembre lembrar recuerda merke notiere".split(
    " ",
  ),
);

/**
 * Modal words a restatement may add ("Always run make lint" from "we run make lint"): they change no
 * action; a flipped negation is checked on its own.
 */
const MODALS = new Set(
  (
    "always must should shall need needs ensure make sure remember first before prior you your " +
    "sempre deve devem precisa precisam garanta lembre antes primeiro você voce siempre debe deben " +
    "debes hay primero immer muss müssen soll sollen sollte zuerst vorher bevor du toujours doit " +
    "devez faut avant abord vous prima всегда должен нужно"
  ).split(" "),
);

const acting = (w: string) =>
  (ACTION_WORDS.has(w) && !MODALS.has(w)) ||
  ACTION_CJK.some(
    (p) =>
      !/^(总是|始终|一定|必须|务必|应该|应当|需要|先|之前|请|你|必ず|常に|先に)$/.test(p) &&
      w.includes(p),
  );

const NEGATION =
  /(?:^|[^\p{L}])(?:never|not|no|don't|dont|doesn't|cannot|can't|avoid|rather|instead|without|nunca|não|nao|nem|jamais|jamás|nie|niemals|nicht|kein|keine|keinen|ne|pas|non|mai|никогда|не|нельзя)(?=$|[^\p{L}])|[不别勿禁]/u;
const negated = (text: string) => NEGATION.test(plain(text));

/** Two forms of one word: equal, or the same first 3 letters (words up to 5) / 4 letters (longer). */
function sameHead(a: string, b: string): boolean {
  if (a === b) return true;
  const n = Math.min(a.length, b.length) <= 5 ? 3 : 4;
  return a.length >= 3 && b.length >= 3 && a.slice(0, n) === b.slice(0, n);
}

function covered(word: string, have: ReadonlySet<string>, list: readonly string[]): boolean {
  if (have.has(word)) return true;
  if (word.length < 5) return false;
  const head = word.slice(0, 5);
  return list.some((u) => u.length >= 5 && u.slice(0, 5) === head);
}

/**
 * Whether one of the user's turns supports the fact: every command, path, flag or host in it appears
 * verbatim in that turn; at least 60% of its words (stemmed, or sharing a 5-letter head — paraphrase,
 * inflection, another tense) appear there; and none of the words it adds is a word that asks an agent
 * to act. A turn longer than MAX_USER_TURN is pasted material and supports nothing.
 */
export function supportedBy(content: string, userTurns: readonly string[]): boolean {
  const fact = tokens(content);
  if (fact.code.length === 0 && fact.words.length === 0) return false;
  for (const turn of userTurns) {
    if (!turn.trim() || turn.length > MAX_USER_TURN) continue;
    const flat = folded(turn);
    if (!fact.code.every((c) => flat.includes(c))) continue;
    const mine = tokens(turn).words;
    const have = new Set(mine);
    const missing = fact.words.filter((w) => !covered(w, have, mine));
    if (fact.words.length > 0 && missing.length / fact.words.length > 0.4) continue;
    // an action word may change form ("rode" → "rodar"), never appear from nowhere
    const said = [...mine, ...(`${flat} ${plain(turn)}`.match(/[\p{L}]+/gu) ?? [])];
    const saidIt = (w: string) => said.some((u) => sameHead(u, w));
    if (missing.some((w) => acting(w) && !saidIt(w))) continue;
    // unstemmed action words the fact adds (stemming may have changed "running" → "run")
    const added = (`${folded(content)} ${plain(content)}`.match(/[\p{L}]+/gu) ?? []).filter(
      (w) => acting(w) && !saidIt(w),
    );
    if (added.length) continue;
    // "never push to main" must not come back as "push to main"
    if (negated(content) !== negated(turn)) continue;
    if (mixedScriptWord(content) && !plain(turn).includes(plain(content))) continue;
    return true;
  }
  return false;
}
