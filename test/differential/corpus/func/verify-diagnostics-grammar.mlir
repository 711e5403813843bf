// MLIR's designator grammar: a space before '@', @below/@above past stacked designators,
// notes, and -re blocks with nested braces.
// RUN: %opt %s --split-input-file --verify-diagnostics
// RUN: %opt %s --split-input-file --verify-diagnostics --canonicalize

func.func @wrong_return(%a: i32) -> f32 {
  // expected-error @below {{type of return operand 0 ('i32') doesn't match function result type ('f32')}}
  return %a : i32
}

// -----

func.func @stacked(%a: f32) -> f32 {
  // expected-error @below {{'arith.addi' op operand #0 must be}}
  // expected-error-re @below {{'arith.{{[a-z]+}}' op operand #{{[0-9]}}{{.*}}but got 'f32'}}
  %0 = arith.addi %a, %a : f32
  return %0 : f32
}

// -----

func.func @above(%a: i32) -> f32 {
  return %a : i32
  // expected-error @above {{doesn't match function result type}}
}

// -----

func.func @note() {
  // expected-note @below {{previously defined here}}
  %x = arith.constant 1 : i32
  %x = arith.constant 2 : i32 // expected-error {{redefinition of SSA value '%x'}}
  return
}

// -----

// expected-error  @+1   {{redefinition of symbol named 'twice'}}
func.func @twice() { return }
func.func @twice() { return }
