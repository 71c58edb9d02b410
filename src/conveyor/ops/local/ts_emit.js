// The JavaScript a TypeScript file emits, with the worktree's own TypeScript (SPEC-89).
// node ts_emit.js TYPESCRIPT_MODULE FILE_NAME SOURCE OUT [SOURCE OUT …]
// Types and comments are erased, value imports kept; zod schemas (a call chain rooted at
// `z` or at a schema constant, with no parse call) are reduced to one placeholder, and
// schema constants and their export-list entries are left out (SPEC-90).
"use strict";
const fs = require("fs");
const [, , tsModule, fileName, ...files] = process.argv;
const ts = require(tsModule);
const major = parseInt(ts.version, 10);
const PARSE = /^(parse|safeParse|parseAsync|safeParseAsync|spa)$/;

function rootOf(node) {
  let names = [];
  while (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node)) {
    if (ts.isPropertyAccessExpression(node)) names.push(node.name.text);
    node = node.expression;
  }
  return { root: ts.isIdentifier(node) ? node.text : "", names };
}

function reduce(context) {
  const schemas = new Set();
  const isSchema = (node) => {
    const { root, names } = rootOf(node);
    return (root === "z" || schemas.has(root)) && !names.some((n) => PARSE.test(n)) &&
      (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node));
  };
  const visit = (node) => {
    if (ts.isVariableStatement(node)) {
      const all = node.declarationList.declarations;
      if (all.length && all.every((d) => d.initializer && isSchema(d.initializer))) {
        all.forEach((d) => ts.isIdentifier(d.name) && schemas.add(d.name.text));
        return undefined;
      }
    }
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause)) {
      const kept = node.exportClause.elements.filter((e) => !schemas.has((e.propertyName || e.name).text));
      if (!kept.length) return undefined;
      return context.factory.updateExportDeclaration(node, node.modifiers, node.isTypeOnly,
        context.factory.updateNamedExports(node.exportClause, kept), node.moduleSpecifier, node.attributes);
    }
    if (isSchema(node)) return context.factory.createIdentifier("__schema__");
    return ts.visitEachChild(node, visit, context);
  };
  return (file) => ts.visitNode(file, visit);
}

const options = major >= 5
  ? { verbatimModuleSyntax: true }
  : { preserveValueImports: true, importsNotUsedAsValues: ts.ImportsNotUsedAsValues.Preserve, isolatedModules: true };
Object.assign(options, {
  target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, removeComments: true,
  jsx: ts.JsxEmit.Preserve, noEmitHelpers: true,
});
for (let i = 0; i + 1 < files.length; i += 2) {
  const result = ts.transpileModule(fs.readFileSync(files[i], "utf8"), {
    fileName, compilerOptions: options, reportDiagnostics: false, transformers: { before: [reduce] },
  });
  fs.writeFileSync(files[i + 1], result.outputText);
}
