// What a source file imports, read with the TypeScript parser (not run): for the checks of
// tools/checks that hold apps and libs to what the repository declares about them.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The workspace root. */
export const root = path.resolve(__dirname, '../..');

/** One import of a file: its module specifier and the names it takes ('default', '*' for a namespace; none for require/import()). */
export interface ImportRef {
  specifier: string;
  names: string[];
}

const TEST_FILE = /\.(spec|integration-spec|e2e-spec)\.ts$/;
const SOURCE_FILE = /\.(ts|cts|mts|js|cjs|mjs)$/;

/** Whether a file is a test (`*.spec.ts`, `*.integration-spec.ts`, `*.e2e-spec.ts`). */
export const isTestFile = (file: string): boolean => TEST_FILE.test(file);

/** Every TypeScript or JavaScript file under `dir` (absolute paths; node_modules and dist skipped). */
export function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(full);
    return SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * Every module a file imports: `import … from`, `export … from`, `import x = require()`,
 * `require('…')` and `import('…')` with a literal specifier.
 */
export function importsOf(file: string): ImportRef[] {
  const text = fs.readFileSync(file, 'utf8');
  const kind = /\.(ts|cts|mts)$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const found: ImportRef[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name) names.push('default');
      if (clause?.namedBindings && ts.isNamespaceImport(clause.namedBindings)) names.push('*');
      if (clause?.namedBindings && ts.isNamedImports(clause.namedBindings)) {
        for (const element of clause.namedBindings.elements) names.push((element.propertyName ?? element.name).text);
      }
      found.push({ specifier: node.moduleSpecifier.text, names });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, names: [] });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, names: [] });
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const isDynamicImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isResolve = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'require' && callee.name.text === 'resolve';
      if (isRequire || isDynamicImport || isResolve) found.push({ specifier: node.arguments[0].text, names: [] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compilerOptions } = require('../../tsconfig.base.json') as { compilerOptions: { paths: Record<string, string[]> } };

/**
 * Where an import of `file` points in the workspace (absolute path, without extension resolution),
 * through a relative path or a tsconfig alias (`@platform/<lib>`); undefined for a package or builtin.
 */
export function resolveInWorkspace(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return path.resolve(path.dirname(file), specifier);
  if (path.isAbsolute(specifier)) return specifier;
  const alias = Object.entries(compilerOptions.paths).find(([name]) => specifier === name || specifier.startsWith(`${name}/`));
  if (!alias) return undefined;
  const [name, [target]] = alias;
  return path.join(root, target, specifier.slice(name.length));
}
