/**
 * The pattern tables of Hermes `tools/approval.py` (hermes-behaviour §20.3). Patterns run on the
 * normalized, lower-cased command with flags `is` (Hermes: IGNORECASE | DOTALL) unless marked
 * `caseSensitive`, in which case they run on the normalized command as typed.
 * The description is both what the user sees and the approval key stored in `command_allowlist`.
 */

export type CommandPattern = {
  re: RegExp;
  description: string;
  /** Matched against the un-lowered text: the flag's case carries meaning (`-D` vs `-d`). */
  caseSensitive?: boolean;
};

// ---- Path fragments (already normalized: home → ~, Hermes home → ~/.hermes) ----
const SSH_PATH = String.raw`(?:~|\$home|\$\{home\})/\.ssh(?:/|$)`;
const HERMES_PREFIX = String.raw`(?:~/\.hermes/|(?:\$home|\$\{home\})/\.hermes/|(?:\$hermes_home|\$\{hermes_home\})/)`;
const HERMES_ENV_PATH = String.raw`${HERMES_PREFIX}\.env\b`;
const HERMES_CONFIG_PATH = String.raw`${HERMES_PREFIX}config\.yaml\b`;
const PROJECT_ENV_PATH = String.raw`(?:(?:/|\.{1,2}/)?(?:[^\s/"'\x60]+/)*\.env(?:\.[^/\s"'\x60]+)*)`;
const PROJECT_CONFIG_PATH = String.raw`(?:(?:/|\.{1,2}/)?(?:[^\s/"'\x60]+/)*config\.yaml)`;
const SHELL_RC_FILES = String.raw`(?:~|\$home|\$\{home\})/\.(?:bashrc|zshrc|profile|bash_profile|zprofile)\b`;
const CREDENTIAL_FILES = String.raw`(?:~|\$home|\$\{home\})/\.(?:netrc|pgpass|npmrc|pypirc)\b`;
// macOS: /etc, /var, /tmp, /home are symlinks into /private, so /private/etc/sudoers is /etc/sudoers.
const SYSTEM_CONFIG_PATH = String.raw`(?:/etc/|/private/(?:etc|var|tmp|home)/)`;
const SENSITIVE_WRITE_TARGET = `(?:${SYSTEM_CONFIG_PATH}|/dev/sd|${SSH_PATH}|${HERMES_ENV_PATH}|${HERMES_CONFIG_PATH}|${SHELL_RC_FILES}|${CREDENTIAL_FILES})`;
const USER_SENSITIVE_WRITE_TARGET = `(?:${SSH_PATH}|${SHELL_RC_FILES}|${CREDENTIAL_FILES})`;
const PROJECT_SENSITIVE_WRITE_TARGET = `(?:${PROJECT_ENV_PATH}|${PROJECT_CONFIG_PATH})`;
// cp/mv/install write only their LAST argument: `cp config.yaml backup.yaml` reads config.yaml.
const COMMAND_TAIL = String.raw`(?:\s*(?:&&|\|\||;).*)?$`;
// `>`/tee always write their target; only require the path word to end (`.env#x` is another file).
const WRITE_TARGET_BOUNDARY = String.raw`(?=[\s;&|<>"']|$)`;

/** sudo's options, including those that take a value (`-u root`). */
const SUDO_OPTIONS = String.raw`(?:(?:-[ugpCDrtUTh]\s+[^\s-]\S*|-[^\s]+)\s+)*`;

/**
 * Start of a command: start of text, after `; & |`, newline, backtick or `$(`, optionally behind
 * sudo (with flags), env VAR=VAL, exec/nohup/setsid/time. Keeps `echo reboot` runnable.
 */
export const COMMAND_POSITION = String.raw`(?:^|[;&|\n\x60]|\$\()\s*(?:sudo\s+${SUDO_OPTIONS})?(?:env\s+(?:\w+=\S*\s+)*)?(?:(?:exec|nohup|setsid|time)\s+)*\s*`;

const RM_PREFIX = String.raw`${COMMAND_POSITION}rm\s+(?:-[^\s]*\s+)*`;
/** The path quoted on its own (`"/"`) or bare and ending at whitespace, end or `) \x60 ; | &`. */
function rmPath(alternatives: string): string {
  return String.raw`(?:["'](?:${alternatives})["']|(?:${alternatives})(?:\s|$|[)\x60;|&]))`;
}
// "/", "//", "/.", "/./..", each optionally globbed; "/ *" is two words ("/" and "*").
const ROOT_PATHS = String.raw`/(?:(?:\.\.?)?/)*(?:\.\.?)?\**|/ \*`;
const SYSTEM_DIRS = String.raw`/home|/home/\*|/root|/root/\*|/etc|/etc/\*|/usr|/usr/\*|/var|/var/\*|/bin|/bin/\*|/sbin|/sbin/\*|/boot|/boot/\*|/lib|/lib/\*`;
const HOME_PATHS = String.raw`(?:~|\$\{?home\}?)(?:/?|/\*)?`;
const BLOCK_DEVICE = String.raw`/dev/(?:sd|nvme|hd|mmcblk|vd|xvd)[a-z0-9]*`;

function p(source: string, description: string): CommandPattern {
  return { re: new RegExp(source, "is"), description };
}

/**
 * Never runnable, not even in yolo. Command words (rm, mkfs, dd, kill, shutdown…) are anchored to
 * command position so prose such as `git commit -m "never rm -rf /"` stays runnable; the softer
 * unanchored rules in DANGEROUS_PATTERNS still ask for those.
 */
export const HARDLINE_PATTERNS: readonly CommandPattern[] = [
  p(RM_PREFIX + rmPath(ROOT_PATHS), "recursive delete of root filesystem"),
  p(RM_PREFIX + rmPath(SYSTEM_DIRS), "recursive delete of system directory"),
  p(RM_PREFIX + rmPath(HOME_PATHS), "recursive delete of home directory"),
  p(String.raw`${COMMAND_POSITION}mkfs(?:\.[a-z0-9]+)?(?=\s|$|[;|&)\x60])`, "format filesystem (mkfs)"),
  p(String.raw`${COMMAND_POSITION}dd\b[^\n]*\bof=["']?${BLOCK_DEVICE}`, "dd to raw block device"),
  p(String.raw`>\s*["']?${BLOCK_DEVICE}\b`, "redirect to raw block device"),
  p(String.raw`:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:`, "fork bomb"),
  p(String.raw`${COMMAND_POSITION}kill\s+(?:-[sn]\s+[^\s-]\S*\s+|-[^\s]+\s+)*-1\b`, "kill all processes"),
  p(String.raw`${COMMAND_POSITION}(?:shutdown|reboot|halt|poweroff)\b`, "system shutdown/reboot"),
  p(String.raw`${COMMAND_POSITION}init\s+[06]\b`, "init 0/6 (shutdown/reboot)"),
  p(String.raw`${COMMAND_POSITION}systemctl\s+(?:poweroff|reboot|halt|kexec)\b`, "systemctl poweroff/reboot"),
  p(String.raw`${COMMAND_POSITION}telinit\s+[06]\b`, "telinit 0/6 (shutdown/reboot)"),
];

/** `sudo -S` reads the password from stdin: without SUDO_PASSWORD that is the model guessing it. */
export const SUDO_STDIN_GUARD: CommandPattern = {
  re: /(?:^|[;&|`\n]|\$\()\s*[sS][uU][dD][oO]\s+(?:(?:-[ugpCDrtUTh]\s+[^\s-]\S*|-[^\s]+)\s+)*(?:-[a-zA-Z]*S[a-zA-Z]*|--stdin)\b/s,
  description: "sudo password guessing via stdin (sudo -S)",
  caseSensitive: true,
};

const START_GATEWAY = "start gateway outside systemd (use 'systemctl --user restart hermes-gateway')";

/** Ask before running. First match wins for the description; every match must be approved. */
export const DANGEROUS_PATTERNS: readonly CommandPattern[] = [
  p(String.raw`\brm\s+(?:-[^\s]*\s+)*/`, "delete in root path"),
  p(String.raw`\brm\s+-[^\s]*r`, "recursive delete"),
  p(String.raw`\brm\s+--recursive\b`, "recursive delete (long flag)"),
  p(String.raw`\bchmod\s+(?:-[^\s]*\s+)*(?:777|666|o\+[rwx]*w|a\+[rwx]*w)\b`, "world/other-writable permissions"),
  p(String.raw`\bchmod\s+--recursive\b.*(?:777|666|o\+[rwx]*w|a\+[rwx]*w)`, "recursive world/other-writable (long flag)"),
  p(String.raw`\bchown\s+(?:-[^\s]*)?r\s+root`, "recursive chown to root"),
  p(String.raw`\bchown\s+--recur[a-z]*\b.*root`, "recursive chown to root (long flag)"),
  p(String.raw`\bmkfs\b`, "format filesystem"),
  p(String.raw`\bdd\s+.*if=`, "disk copy"),
  p(String.raw`>\s*/dev/sd`, "write to block device"),
  p(String.raw`\bdrop\s+(?:table|database)\b`, "SQL DROP"),
  // [^\n] rather than `.`: with dotAll a WHERE on a later line would excuse this DELETE.
  p(String.raw`\bdelete\s+from\b(?![^\n]*\bwhere\b)`, "SQL DELETE without WHERE"),
  p(String.raw`\btruncate\s+(?:table)?\s*\w`, "SQL TRUNCATE"),
  p(String.raw`>\s*${SYSTEM_CONFIG_PATH}`, "overwrite system config"),
  p(String.raw`\bsystemctl\s+(?:-[^\s]+\s+)*(?:stop|restart|disable|mask)\b`, "stop/restart system service"),
  p(String.raw`\bkill\s+-9\s+-1\b`, "kill all processes"),
  p(String.raw`\bpkill\s+-9\b`, "force kill processes"),
  p(String.raw`\bkillall\s+(?:-[^\s]*\s+)*-(?:9|kill|sigkill)\b`, "force kill processes (killall -KILL)"),
  p(String.raw`\bkillall\s+(?:-[^\s]*\s+)*-s\s+(?:kill|sigkill|9)\b`, "force kill processes (killall -s KILL)"),
  p(String.raw`\bkillall\s+(?:-[^\s]*\s+)*-r\b`, "kill processes by regex (killall -r)"),
  p(String.raw`:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:`, "fork bomb"),
  p(String.raw`\b(?:bash|sh|zsh|ksh|dash)\s+-[^\s]*c(?:\s+|$)`, "shell command via -c/-lc flag"),
  p(String.raw`\b(?:python[23]?|perl|ruby|node)\s+-[ec]\s+`, "script execution via -e/-c flag"),
  p(String.raw`\b(?:curl|wget)\b.*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:[/\w]*/)?(?:ba|z|k|da)?sh\b`, "pipe remote content to shell"),
  p(String.raw`\b(?:bash|sh|zsh|ksh|dash)\s+<\s*<?\s*\(\s*(?:curl|wget)\b`, "execute remote script via process substitution"),
  p(String.raw`\btee\b.*["']?${SENSITIVE_WRITE_TARGET}`, "overwrite system file via tee"),
  p(String.raw`>>?\s*["']?${SENSITIVE_WRITE_TARGET}`, "overwrite system file via redirection"),
  p(String.raw`\btee\b.*["']?${PROJECT_SENSITIVE_WRITE_TARGET}["']?${WRITE_TARGET_BOUNDARY}`, "overwrite project env/config via tee"),
  p(String.raw`>>?\s*["']?${PROJECT_SENSITIVE_WRITE_TARGET}["']?${WRITE_TARGET_BOUNDARY}`, "overwrite project env/config via redirection"),
  p(String.raw`\bxargs\s+.*\brm\b`, "xargs with rm"),
  p(String.raw`\bfind\b.*-exec(?:dir)?\s+(?:/\S*/)?rm\b`, "find -exec/-execdir rm"),
  p(String.raw`\bfind\b.*-delete\b`, "find -delete"),
  p(String.raw`\bhermes\s+(?:-{1,2}\S+(?:\s+\S+)?\s+)*gateway\s+(?:stop|restart)\b`, "stop/restart hermes gateway (kills running agents)"),
  p(String.raw`\bhermes\s+update\b`, "hermes update (restarts gateway, kills running agents)"),
  p(String.raw`\bdocker(?:-compose|\s+compose)\s+(?:-{1,2}\S+(?:[=\s]\S+)?\s+)*(?:restart|stop|kill|down)\b`, "docker compose restart/stop/kill/down (container lifecycle)"),
  p(String.raw`\bdocker\s+(?:-{1,2}\S+(?:[=\s]\S+)?\s+)*(?:restart|stop|kill)\b`, "docker restart/stop/kill (container lifecycle)"),
  p(String.raw`gateway\s+run\b.*(?:&\s*$|&\s*;|\bdisown\b|\bsetsid\b)`, START_GATEWAY),
  p(String.raw`\bnohup\b.*gateway\s+run\b`, START_GATEWAY),
  p(String.raw`\b(?:pkill|killall)\b.*\b(?:hermes|gateway|cli\.py)\b`, "kill hermes/gateway process (self-termination)"),
  p(String.raw`\bkill\b.*\$\(\s*(?:pgrep|pidof)\b`, "kill process via pgrep expansion (self-termination)"),
  p(String.raw`\bkill\b.*\x60\s*(?:pgrep|pidof)\b`, "kill process via backtick pgrep expansion (self-termination)"),
  p(String.raw`\b(?:cp|mv|install)\b.*\s${SYSTEM_CONFIG_PATH}`, "copy/move file into system config path"),
  p(String.raw`\b(?:cp|mv|install)\b.*\s["']?${PROJECT_SENSITIVE_WRITE_TARGET}["']?${COMMAND_TAIL}`, "overwrite project env/config file"),
  p(String.raw`\b(?:cp|mv|install)\b.*\s["']?${SENSITIVE_WRITE_TARGET}[^\s"']*["']?${COMMAND_TAIL}`, "copy/move file into sensitive credential/SSH/shell-rc path"),
  p(String.raw`\bsed\s+-[^\s]*i.*${USER_SENSITIVE_WRITE_TARGET}`, "in-place edit of sensitive credential/SSH/shell-rc path"),
  p(String.raw`\bsed\s+--in-place\b.*${USER_SENSITIVE_WRITE_TARGET}`, "in-place edit of sensitive credential/SSH/shell-rc path (long flag)"),
  p(String.raw`\b(?:perl|ruby)\b.*(?:^|\s)-[^\s]*i\b.*${USER_SENSITIVE_WRITE_TARGET}`, "in-place edit of sensitive credential/SSH/shell-rc path (perl/ruby)"),
  p(String.raw`\bsed\s+-[^\s]*i.*\s${SYSTEM_CONFIG_PATH}`, "in-place edit of system config"),
  p(String.raw`\bsed\s+--in-place\b.*\s${SYSTEM_CONFIG_PATH}`, "in-place edit of system config (long flag)"),
  p(String.raw`\bsed\s+-[^\s]*i.*(?:${HERMES_CONFIG_PATH}|${HERMES_ENV_PATH})`, "in-place edit of Hermes config/env"),
  p(String.raw`\bsed\s+--in-place\b.*(?:${HERMES_CONFIG_PATH}|${HERMES_ENV_PATH})`, "in-place edit of Hermes config/env (long flag)"),
  p(String.raw`\b(?:perl|ruby)\b.*(?:^|\s)-[^\s]*i\b.*(?:${HERMES_CONFIG_PATH}|${HERMES_ENV_PATH})`, "in-place edit of Hermes config/env (perl/ruby)"),
  p(String.raw`\b(?:python[23]?|perl|ruby|node)\s+<<`, "script execution via heredoc"),
  p(String.raw`\bgit\s+reset\s+--hard\b`, "git reset --hard (destroys uncommitted changes)"),
  p(String.raw`\bgit\s+push\b.*--force\b`, "git force push (rewrites remote history)"),
  p(String.raw`\bgit\s+push\b.*\s-f\b`, "git force push short flag (rewrites remote history)"),
  p(String.raw`\bgit\s+clean\s+-[^\s]*f`, "git clean with force (deletes untracked files)"),
  // Case-sensitive: `-d` only deletes merged branches; `-D` throws unmerged work away.
  {
    re: /\b[gG][iI][tT]\s+[bB][rR][aA][nN][cC][hH]\s+(?:[^;|&\n]*\s)?-[a-zA-Z]*D\b/s,
    description: "git branch force delete",
    caseSensitive: true,
  },
  p(String.raw`\bchmod\s+\+x\b.*[;&|]+\s*\./`, "chmod +x followed by immediate execution"),
  p(String.raw`\bsudo\b[^;|&\n]*?\s+(?:-s\b|--stdin\b|-a\b|--askpass\b)`, "sudo with privilege flag (stdin/askpass/shell/list)"),
  p(String.raw`\bsudo\b[^;|&\n]*?\s+-[a-z]*[sa][a-z]*\b`, "sudo with combined-flag privilege escalation"),
];

/**
 * Hermes' pre-description approval keys (`pattern.split("\\b")[1]`), so `command_allowlist`
 * entries written by old Hermes versions keep approving the same rule.
 */
export function legacyPatternKey(pattern: CommandPattern): string {
  const source = pattern.re.source;
  const parts = source.split("\\b");
  return parts.length > 1 ? (parts[1] ?? "") : source.slice(0, 20);
}
