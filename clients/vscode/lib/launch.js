'use strict';
// How the extension starts agentls: the binary from the agentls.path setting,
// else `agentls` on PATH, with the agentls.args setting (default ["serve"]).
// Both settings have machine scope in package.json: a repository's
// .vscode/settings.json must never choose the program we run (that would be
// code execution on open).

const fs = require('fs');
const path = require('path');

const INSTALL_HINT =
  'install it with `go install github.com/agentls/agentls/cmd/agentls@latest` ' +
  '(and add $(go env GOPATH)/bin to PATH), or set "agentls.path" in your user settings';

/** findOnPath returns the absolute path of an executable named name on the PATH given, or null. */
function findOnPath(name, envPath) {
  for (const dir of (envPath || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/**
 * serverCommand reads the agentls settings through the injected vscode module
 * and returns {command, args}, or throws an Error a person can act on.
 */
function serverCommand(vscode, env = process.env) {
  const config = vscode.workspace.getConfiguration('agentls');
  const configured = (config.get('path') || '').trim();
  let args = config.get('args');
  if (args === undefined || args === null) args = ['serve'];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw new Error(`agentls.args must be a list of strings, like ["serve"]; it is ${JSON.stringify(args)}`);
  }
  if (configured) {
    if (!path.isAbsolute(configured)) {
      throw new Error(`agentls.path must be an absolute path; it is "${configured}"`);
    }
    try {
      fs.accessSync(configured, fs.constants.X_OK);
    } catch {
      throw new Error(`agentls.path is "${configured}", which is not an executable file: ${INSTALL_HINT}`);
    }
    return { command: configured, args };
  }
  const found = findOnPath('agentls', env.PATH);
  if (!found) throw new Error(`agentls was not found on PATH: ${INSTALL_HINT}`);
  return { command: found, args };
}

module.exports = { serverCommand, findOnPath, INSTALL_HINT };
