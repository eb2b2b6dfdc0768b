// `.env.example` and the README's Configuration table are kept by hand; this holds them to the table of
// settings the gateway reads, name for name and default for default.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { familySettings } from '../../src/chains/families.ts';
import { withoutEmpty } from '../../src/config/setting.ts';
import { everySetting } from '../../src/config/settings.ts';
import { loadConfig } from '../../src/config.ts';
import { PROJECT_ROOT } from '../helpers/processes.ts';

const settings = everySetting(familySettings());
const read = (file: string) => readFileSync(`${PROJECT_ROOT}${file}`, 'utf8');

interface Documented {
  name: string;
  /** The value written (for .env.example) or the default cell (for the README). */
  value: string;
  active: boolean;
}

/** `NAME=value` lines, active or commented out (`# NAME=`); other comment lines explain. */
function envExampleEntries(text: string): Documented[] {
  return text.split('\n').flatMap((line) => {
    const match = /^(# )?([A-Z<][A-Z0-9_<>]*)=(.*)$/.exec(line);
    return match ? [{ name: match[2]!, value: match[3]!, active: match[1] === undefined }] : [];
  });
}

function readmeConfigurationRows(text: string): Documented[] {
  const section = text.slice(text.indexOf('\n## Configuration\n'), text.indexOf('\n## Production\n'));
  return section.split('\n').flatMap((line) => {
    const match = /^\| `([^`]+)` \| (.+?) \| .+ \|$/.exec(line);
    return match ? [{ name: match[1]!, value: match[2]!, active: true }] : [];
  });
}

describe('the documented settings', () => {
  it('.env.example lists every setting, in order, active with its default or commented when it has none', () => {
    const entries = envExampleEntries(read('.env.example'));
    expect(entries.map((e) => e.name)).toEqual(settings.map(([name]) => name));
    for (const [name, setting] of settings) {
      const entry = entries.find((e) => e.name === name)!;
      const expected =
        setting.default === undefined
          ? { active: false, value: '' }
          : { active: true, value: setting.default };
      expect(entry).toEqual({ name, ...expected });
    }
  });

  it('.env.example says what a worked-out default is', () => {
    const text = read('.env.example');
    for (const [, setting] of settings) {
      if (setting.default === undefined)
        expect(text).toContain(`# default: ${setting.computed ?? 'unset'}\n`);
    }
  });

  it("the README's Configuration table names every setting, in order, with the same default", () => {
    const rows = readmeConfigurationRows(read('README.md'));
    expect(rows.map((r) => r.name)).toEqual(settings.map(([name]) => name));
    for (const [name, setting] of settings) {
      const cell = setting.default === undefined ? (setting.computed ?? 'unset') : `\`${setting.default}\``;
      expect({ name, value: rows.find((r) => r.name === name)!.value }).toEqual({ name, value: cell });
    }
  });

  it('the active lines of .env.example are a configuration the gateway accepts', () => {
    const active = Object.fromEntries(
      envExampleEntries(read('.env.example'))
        .filter((e) => e.active)
        .map((e) => [e.name, e.value]),
    );
    expect(() => loadConfig(withoutEmpty(active), familySettings())).not.toThrow();
  });
});
