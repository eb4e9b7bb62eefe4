import { normalizeForScan } from "./threatscan.ts";

/**
 * The word tests of lib/memory/trust.ts: look-alike letters, the words that make a sentence ask an
 * agent to act (in the languages users write memory in), command shapes, negation.
 */

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
export function plain(text: string): string {
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
export const ACTION_WORDS = new Set(
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
export const ACTION_CJK = [
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

/**
 * Modal words a restatement may add ("Always run make lint" from "we run make lint"): they change no
 * action; a flipped negation is checked on its own.
 */
export const MODALS = new Set(
  (
    "always must should shall need needs ensure make sure remember first before prior you your " +
    "sempre deve devem precisa precisam garanta lembre antes primeiro você voce siempre debe deben " +
    "debes hay primero immer muss müssen soll sollen sollte zuerst vorher bevor du toujours doit " +
    "devez faut avant abord vous prima всегда должен нужно"
  ).split(" "),
);

export const acting = (w: string) =>
  (ACTION_WORDS.has(w) && !MODALS.has(w)) ||
  ACTION_CJK.some(
    (p) =>
      !/^(总是|始终|一定|必须|务必|应该|应当|需要|先|之前|请|你|必ず|常に|先に)$/.test(p) &&
      w.includes(p),
  );

const NEGATION =
  /(?:^|[^\p{L}])(?:never|not|no|don't|dont|doesn't|cannot|can't|avoid|rather|instead|without|nunca|não|nao|nem|jamais|jamás|nie|niemals|nicht|kein|keine|keinen|ne|pas|non|mai|никогда|не|нельзя)(?=$|[^\p{L}])|[不别勿禁]/u;
export const negated = (text: string) => NEGATION.test(plain(text));
