// Verifier errors checked against expected-* comments, chunk by chunk.
// RUN: %opt %s --split-input-file --verify-diagnostics
// RUN: %opt %s --split-input-file
// RUN: %opt %s --split-input-file --verify-diagnostics --canonicalize

func.func @wrong_return(%a: i32) -> f32 {
  // expected-error@+1 {{type of return operand 0 ('i32') doesn't match function result type ('f32')}}
  return %a : i32
}

// -----

func.func @fine(%a: i32) -> i32 {
  return %a : i32
}

// -----

func.func @bad_add(%a: f32) -> f32 {
  // expected-error-re@+1 {{'arith.addi' op operand #{{[0-9]+}} must be {{.*}}integer{{.*}}, but got 'f32'}}
  %0 = arith.addi %a, %a : f32
  return %0 : f32
}

// -----

// expected-error@+1 {{redefinition of symbol named 'twice'}}
func.func @twice() { return }
func.func @twice() { return }
