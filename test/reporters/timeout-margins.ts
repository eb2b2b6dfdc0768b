import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** A test should finish in a quarter of its timeout on a quiet machine, so a loaded one does not fail it. */
const MARGIN = 4;

interface Tight {
  name: string;
  duration: number;
  timeout: number;
}

/**
 * Lists, after the run, the tests that used more than a quarter of their timeout and the files' slowest
 * totals: what `.ci/run` prints so a test creeping towards its timeout shows before it fails on a busy
 * machine.
 */
export default class TimeoutMargins implements Reporter {
  private readonly tight: Tight[] = [];
  private readonly files: { name: string; duration: number }[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const duration = testCase.diagnostic()?.duration ?? 0;
    const timeout = testCase.options.timeout ?? 0;
    if (timeout > 0 && duration * MARGIN > timeout) {
      this.tight.push({
        name: `${testCase.module.relativeModuleId} > ${testCase.fullName}`,
        duration,
        timeout,
      });
    }
  }

  onTestModuleEnd(testModule: TestModule): void {
    const duration = testModule.diagnostic().duration;
    this.files.push({ name: `${testModule.project.name} ${testModule.relativeModuleId}`, duration });
  }

  onTestRunEnd(): void {
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(`\ntests over 1/${MARGIN} of their timeout: ${this.tight.length}`);
    for (const test of this.tight.sort((a, b) => b.duration / b.timeout - a.duration / a.timeout)) {
      console.log(`  ${seconds(test.duration)} of ${seconds(test.timeout)}  ${test.name}`);
    }
    console.log('slowest files:');
    for (const file of this.files.sort((a, b) => b.duration - a.duration).slice(0, 15)) {
      console.log(`  ${seconds(file.duration)}  ${file.name}`);
    }
  }
}
