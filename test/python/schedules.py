# RUN: %PYTHON %s | FileCheck %s

# strata.codegen.transform: schedules built with upstream's transform builders, and the
# tag/apply/untag protocol (Tags) that strata-vectorize, -fuse, -parallelize, -gpu-map
# and -gpu-launch share.

from mlir import ir
from mlir.dialects.transform import structured

from strata.codegen.transform import ScriptError, Tags, build_schedule, match_ops, match_tagged
from strata.context import new_context


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


PAYLOAD = """
func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
"""


def _count_tagged(module) -> int:
    found = []

    def visit(op):
        if "strata.test_tag" in op.attributes:
            found.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return len(found)


# CHECK-LABEL: TEST: schedule_text
# CHECK: module attributes {transform.with_named_sequence} {
# CHECK-NEXT: transform.named_sequence @__transform_main(%[[ROOT:.+]]: !transform.any_op {transform.readonly}) {
# CHECK-NEXT: %[[M:.+]] = transform.structured.match attributes {t} in %[[ROOT]]
# CHECK-NEXT: %{{.+}}, %{{.+}}:2 = transform.structured.tile_using_for %[[M]] tile_sizes [4, 8]
# CHECK-NEXT: %{{.+}} = transform.structured.match ops{["func.func"]} in %[[ROOT]]
# CHECK-NEXT: transform.yield
@run
def schedule_text():
    with new_context() as ctx:
        def body(root):
            structured.TileUsingForOp(match_tagged(root, "t"), sizes=[4, 8])
            match_ops(root, ["func.func"])

        print(build_schedule(body, ctx))


# Only the tagged matmul is tiled; no tag is left afterwards, on it or on its tiles.
# CHECK-LABEL: TEST: tag_apply_untag
# CHECK: tagged tiles: 1
# CHECK: scf.for
# CHECK: scf.for
# CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x8xf32>)
# CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x4xf32>, tensor<4x16xf32>)
# CHECK: tags left: 0
@run
def tag_apply_untag():
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(PAYLOAD)
        first = module.body.operations[0].regions[0].blocks[0].operations[0]
        with Tags(module) as tags:
            tags.add(first, "strata.test_tag")
            first = None
            tags.apply(lambda root: structured.TileUsingForOp(
                match_tagged(root, "strata.test_tag"), sizes=[4, 8]))
            print("tagged tiles:", _count_tagged(module))
        print(module)
        print("tags left:", _count_tagged(module))



# A schedule that does not verify is a ScriptError, not a crash of the interpreter.
# CHECK-LABEL: TEST: invalid_schedule
# CHECK: ScriptError: the schedule does not verify
@run
def invalid_schedule():
    with new_context() as ctx, ir.Location.unknown():
        def body(root):
            # tile_using_for with 2 sizes yields 3 handles; give it 2 result types
            structured.TileUsingForOp([structured.transform.AnyOpType.get()],
                                      match_tagged(root, "t"), sizes=[4, 8])

        try:
            build_schedule(body, ctx)
        except ScriptError as e:
            print("ScriptError:", str(e).splitlines()[0])
