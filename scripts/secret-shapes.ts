/**
 * Generated secrets in the usual shapes (OpenAI, Anthropic, GitHub, AWS secret, Google, 40-hex,
 * UUID, word+digits password), from a seed: the false-positive measurements of the secret checks
 * (scripts/measure-secret-parts.ts, tests/unit/secret-forms.test.ts) use them.
 */
export function secretShapes(start: number): Record<string, () => string> {
  let seed = start;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
  const B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const HEX = "0123456789abcdef";
  const WORDS = ["summer", "horse", "battery", "staple", "dragon", "secure", "admin", "deploy"];
  return {
    openai: () => `sk-proj-${pick(`${B62}_-`, 48)}`,
    anthropic: () => `sk-ant-api03-${pick(`${B62}_-`, 93)}`,
    github: () => `ghp_${pick(B62, 36)}`,
    aws_secret: () => pick(`${B62}/+`, 40),
    google: () => `AIza${pick(`${B62}_-`, 35)}`,
    hex40: () => pick(HEX, 40),
    uuid: () =>
      `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-${pick("89ab", 1)}${pick(HEX, 3)}-${pick(HEX, 12)}`,
    password: () =>
      `${WORDS[Math.floor(rand() * 8)]}${Math.floor(rand() * 9000 + 1000)}${WORDS[Math.floor(rand() * 8)]}!`,
  };
}
