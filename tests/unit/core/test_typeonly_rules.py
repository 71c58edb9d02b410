"""The type-only rule per language (issue 47, point 5): a spec may extend an interface's
declarations in TypeScript, Go, Rust, C and C++ or Java, and nothing that runs."""

from __future__ import annotations

import pytest

from conveyor.core.ecosystems import of_path
from conveyor.core.typeonly import type_only
from conveyor.core.typeonly_rules import declarations_only

GO = (
    "package calc\n\ntype Calc interface {\n\tAdd(a, b int) int\n}\n\n"
    "func Add(a, b int) int { return a + b }\n"
)
RUST = (
    "pub trait Calc {\n    fn add(&self, a: i32, b: i32) -> i32;\n"
    "    fn one(&self) -> i32 { 1 }\n}\n"
)
HEADER = (
    "#pragma once\nint add(int a, int b);\n"
    "class Calc {\npublic:\n  int add(int a, int b) const;\n};\n"
)
JAVA = "public interface Calc {\n    int add(int a, int b);\n}\n"
TS = "export interface Calc {\n  add(a: number, b: number): number;\n}\nexport const one = 1;\n"

ACCEPTED = {
    "a Go interface method": (
        "calc/calc.go",
        GO,
        GO.replace("int\n}", "int\n\tMul(a, b int) int\n}"),
    ),
    "a new Go interface": (
        "calc/calc.go",
        GO,
        GO + "\ntype Muler interface {\n\tMul(a, b int) int\n}\n",
    ),
    "a Rust trait's required method": (
        "src/lib.rs",
        RUST,
        RUST.replace("    fn one", "    fn mul(&self, a: i32, b: i32) -> i32;\n    fn one"),
    ),
    "a Rust signature over lines": (
        "src/lib.rs",
        RUST,
        RUST.replace(
            "    fn one", "    fn mul(\n        &self,\n        a: i32,\n    ) -> i32;\n    fn one"
        ),
    ),
    "a C prototype": (
        "src/calc.h",
        HEADER,
        HEADER.replace("class", "int mul(int a, int b);\nclass"),
    ),
    "a C++ member prototype": (
        "src/calc.hpp",
        HEADER,
        HEADER.replace("};", "  int mul(int a, int b) const;\n};"),
    ),
    "a forward declaration and an alias": (
        "src/calc.h",
        HEADER,
        HEADER + "struct Result;\nusing Number = long;\n",
    ),
    "a Java interface method": (
        "src/Calc.java",
        JAVA,
        JAVA.replace("b);\n", "b);\n    int mul(int a, int b);\n"),
    ),
    "a TypeScript interface member and an optional property": (
        "src/calc.ts",
        TS,
        TS.replace(
            "number;\n}", "number;\n  mul(a: number, b: number): number;\n  name?: string;\n}"
        ),
    ),
    "a TypeScript type alias and an import type": (
        "src/calc.ts",
        TS,
        "import type { Big } from './big';\n" + TS + "export type Op = 'add' | 'mul';\n",
    ),
    "a declaration file's new function": (
        "types/calc.d.ts",
        "export declare function add(a: number): number;\n",
        "export declare function add(a: number): number;\n"
        "export declare function mul(a: number): number;\n",
    ),
    "a comment": ("calc/calc.go", GO, "// Package calc adds.\n" + GO),
}
REFUSED = {
    "a Go function body": ("calc/calc.go", GO, GO.replace("a + b", "a * b"), "removes or changes"),
    "a Go function added": (
        "calc/calc.go",
        GO,
        GO + "func Mul(a, b int) int { return a * b }\n",
        "not a method",
    ),
    "a Rust default method (a body)": (
        "src/lib.rs",
        RUST,
        RUST.replace("    fn one", "    fn two(&self) -> i32 { 2 }\n    fn one"),
        "not a required method",
    ),
    "a C function definition": (
        "src/calc.h",
        HEADER,
        HEADER + "int mul(int a, int b) { return a * b; }\n",
        "not a prototype",
    ),
    "a C++ virtual method": (
        "src/calc.hpp",
        HEADER,
        HEADER.replace("};", "  virtual int mul(int a);\n};"),
        "prototype",
    ),
    "a C data member": (
        "src/calc.hpp",
        HEADER,
        HEADER.replace("};", "  int cache;\n};"),
        "prototype",
    ),
    "a macro": ("src/calc.h", HEADER, HEADER + "#define MUL(a, b) ((a) * (b))\n", "prototype"),
    "a C source file": (
        "src/calc.c",
        "int add(int a, int b);\n",
        "int add(int a, int b);\nint mul(int a, int b);\n",
        "only a header",
    ),
    "a Java default method": (
        "src/Calc.java",
        JAVA,
        JAVA.replace("b);\n", "b);\n    default int two() { return 2; }\n"),
        "not an abstract method",
    ),
    "a TypeScript value": ("src/calc.ts", TS, TS + "export const two = 2;\n", "not type-level"),
    "a TypeScript directive comment": (
        "src/calc.ts",
        TS,
        TS.replace("export const", "// @ts-ignore\nexport const"),
        "directive",
    ),
    "a TypeScript value changed": (
        "src/calc.ts",
        TS,
        TS.replace("= 1", "= 2"),
        "removes or changes",
    ),
}


@pytest.mark.parametrize(("path", "old", "new"), ACCEPTED.values(), ids=ACCEPTED.keys())
def test_declarations_that_run_nothing_are_accepted(path: str, old: str, new: str) -> None:
    """Each language's conservative rule lets the spec extend an interface."""
    ecosystem = of_path(path)
    assert ecosystem is not None
    verdict = declarations_only(old, new, ecosystem.declarations, ecosystem.comments, path)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(("path", "old", "new", "says"), REFUSED.values(), ids=REFUSED.keys())
def test_runtime_code_is_refused_naming_the_line(path: str, old: str, new: str, says: str) -> None:
    """Bodies, values, virtual methods, data members, macros and directives are refused."""
    ecosystem = of_path(path)
    assert ecosystem is not None
    verdict = declarations_only(old, new, ecosystem.declarations, ecosystem.comments, path)
    assert not verdict.ok
    assert says in verdict.reason


MODEL = "from pydantic import BaseModel\n\n\nclass Point(BaseModel):\n    x: int\n"


def test_python_schema_fields_may_change_and_a_new_schema_of_fields_may_come() -> None:
    """SPEC-90 as in Python: pydantic's and marshmallow's fields are schema, not runtime code."""
    assert type_only(MODEL, MODEL + "    y: int = 0\n").ok
    assert type_only(MODEL, MODEL.replace("x: int", "x: float = 1.5")).ok
    assert type_only(MODEL, MODEL + "\n\nclass Size(BaseModel):\n    w: int\n").ok
    marsh = "from marshmallow import Schema, fields\n\n\nclass P(Schema):\n    x = fields.Int()\n"
    assert type_only(marsh, marsh + "    y = fields.Str(required=True)\n").ok


def test_python_schema_methods_are_still_runtime_code() -> None:
    """A validator added to a schema, or a new schema with one, runs: refused."""
    method = "\n    def norm(self):\n        return self.x\n"
    assert not type_only(MODEL, MODEL + method).ok
    assert not type_only(MODEL, MODEL + "\n\nclass Size(BaseModel):\n    w: int\n" + method).ok
