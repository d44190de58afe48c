/*
| Import cycles among the service's own modules, found with the TypeScript compiler
| that type-checks them: it resolves `#alias/...` imports through package.json
| "imports" exactly as `tsc` does, so the graph is the one the build sees, and it adds
| no dependency. Every import counts: static, type-only and `import()` (a lazy import
| or a cycle of types still ties two modules together: neither can be read, moved or
| tested without the other).
*/
import { readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return typeScriptFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

function compilerOptions(projectRoot: string): ts.CompilerOptions {
  const configPath = join(projectRoot, 'tsconfig.json')
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    }
  )
  if (!parsed) throw new Error(`cannot read ${configPath}`)
  return parsed.options
}

/** The module specifiers a file imports or re-exports, with `import()` calls. */
function importedSpecifiers(path: string): string[] {
  const source = ts.createSourceFile(path, ts.sys.readFile(path) ?? '', ts.ScriptTarget.Latest)
  const specifiers: string[] = []
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal
      if (ts.isStringLiteral(literal)) specifiers.push(literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return specifiers
}

/** Each file under `folders` (relative to `projectRoot`) and the files there it imports. */
export function importGraph(projectRoot: string, folders: string[]): Map<string, string[]> {
  const root = resolve(projectRoot)
  const options = compilerOptions(root)
  const files = folders.flatMap((folder) => typeScriptFiles(join(root, folder)))
  const inGraph = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const targets = new Set<string>()
    for (const specifier of importedSpecifiers(file)) {
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule
      if (resolved && inGraph.has(resolved.resolvedFileName)) {
        targets.add(relative(root, resolved.resolvedFileName))
      }
    }
    graph.set(relative(root, file), [...targets].sort())
  }
  return graph
}

/**
 * The groups of modules that import each other, directly or around a loop (the
 * strongly connected components of more than one module, or one importing itself),
 * each sorted, in a stable order (Tarjan's algorithm).
 */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const order = new Map<string, number>()
  const lowest = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: string[][] = []

  const visit = (file: string) => {
    order.set(file, order.size)
    lowest.set(file, order.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target)
        lowest.set(file, Math.min(lowest.get(file)!, lowest.get(target)!))
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file)!, order.get(target)!))
      }
    }
    if (lowest.get(file) !== order.get(file)) return
    const group: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.push(member)
    } while (member !== file)
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) groups.push(group.sort())
  }

  for (const file of [...graph.keys()].sort()) {
    if (!order.has(file)) visit(file)
  }
  return groups.sort((a, b) => a[0].localeCompare(b[0]))
}
