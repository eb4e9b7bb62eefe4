// Stand-in for `node:util` inside commander (it only uses stripVTControlCharacters to measure help
// text): loading node:util costs ~2 ms of start-up in a compiled binary.
const VT = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

export function stripVTControlCharacters(text: string): string {
  return text.replace(VT, "");
}
