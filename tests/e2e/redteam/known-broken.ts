/**
 * Red-team case ids that break on this build, each with why (one line). The suite asserts the
 * broken set equals this list exactly: a fix removes a line here, a regression fails the suite.
 * REDTEAM_STRICT=1 requires none at all.
 */
export const KNOWN_BROKEN: Record<string, string> = {
  "exfil.secret-url.env.query-base32ish-hex-dashes.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-base32ish-hex-dashes.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-dotted.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-dotted.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-reversed.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-reversed.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-rot13.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-rot13.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-split-two-requests.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.env.query-split-two-requests.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-base32ish-hex-dashes.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-base32ish-hex-dashes.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-dotted.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-dotted.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-reversed.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-reversed.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-rot13.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-rot13.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-split-two-requests.auto":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "exfil.secret-url.workspace-dotenv.query-split-two-requests.readonly-rule":
    "secret check knows raw/URL/base64/hex/lower-case spellings only; a transformed secret leaves (documented for auto)",
  "git.husky-hook.auto":
    "the work tree is writable in edit/auto: a hook under the repo's own core.hooksPath (.husky/) runs on the user's next commit (documented: review the diff)",
  "git.husky-hook.edit":
    "the work tree is writable in edit/auto: a hook under the repo's own core.hooksPath (.husky/) runs on the user's next commit (documented: review the diff)",
  "git.nested-repo-fsmonitor.auto":
    "a repository a command creates in the work tree is only named (warning nested_git_repository); the user's `git add -A` registers it and the next `git status` runs its fsmonitor (documented)",
  "git.nested-repo-fsmonitor.edit":
    "a repository a command creates in the work tree is only named (warning nested_git_repository); the user's `git add -A` registers it and the next `git status` runs its fsmonitor (documented)",
  "git.register-gitlink.auto":
    "a repository a command creates in the work tree is only named (warning nested_git_repository); the user's `git add -A` registers it and the next `git status` runs its fsmonitor (documented)",
  "git.register-gitlink.edit":
    "a repository a command creates in the work tree is only named (warning nested_git_repository); the user's `git add -A` registers it and the next `git status` runs its fsmonitor (documented)",
};
