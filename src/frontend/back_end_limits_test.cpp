// The front end refuses for a back end only what that back end's limits say
// (back_end_limits.h), naming the function; with no limits it analyses v128
// code like any other.
#include "frontend/back_end_limits.h"

#include <gtest/gtest.h>

#include <string>

#include "frontend/front_end_facts.h"
#include "frontend/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::frontend {
namespace {

using testing::decode_wat;

constexpr const char* kSimdKernel = R"((module (memory 1)
  (func $helper (param i32)
    (v128.store (local.get 0) (i32x4.splat (local.get 0))))
  (func (export "k") (param i32) (call $helper (local.get 0)))))";

std::optional<std::string> no_v128(wasm::ValType type) {
  if (type == wasm::ValType::V128) return std::string("v128 (test back end)");
  return std::nullopt;
}

std::optional<std::string> no_vector_instructions(const wasm::OpcodeInfo& op) {
  if (op.cls == wasm::OpcodeClass::Vector) return "the vector instruction " + std::string(op.text);
  return std::nullopt;
}

Result<FrontEndFacts> analyse(const wasm::Module& module, const BackEndLimits& limits) {
  const uint32_t kernel = module.find_export("k", wasm::ExternalKind::Func)->index;
  const uint32_t roots[] = {kernel};
  return analyse_module(module, roots, kernel, limits);
}

TEST(BackEndLimits, WithoutLimitsTheFrontEndAnalysesSimdCode) {
  const wasm::Module module = decode_wat(kSimdKernel);
  Result<FrontEndFacts> facts = analyse(module, {});
  ASSERT_TRUE(facts.ok()) << facts.error().to_string();
  EXPECT_EQ(facts->graph.functions.size(), 2u);
  EXPECT_EQ(facts->functions.size(), 2u);
}

TEST(BackEndLimits, TheBackEndsLimitsAreRefusedNamingTheFunction) {
  const wasm::Module simd = decode_wat(kSimdKernel);
  Result<FrontEndFacts> instructions = analyse(simd, {nullptr, &no_vector_instructions});
  ASSERT_FALSE(instructions.ok());
  EXPECT_EQ(instructions.error().message, "function helper uses the vector instruction i32x4.splat");

  const wasm::Module local = decode_wat(R"((module
    (func $helper (local v128))
    (func (export "k") (param i32) (call $helper))))");
  Result<FrontEndFacts> types = analyse(local, {&no_v128, nullptr});
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.error().message, "function helper uses v128 (test back end)");
}

TEST(BackEndLimits, WhatNoBackEndRunsIsRefusedWithoutLimits) {
  const wasm::Module module = decode_wat(R"((module
    (import "env" "puts" (func))
    (func (export "k") (param i32) (call 0))))");
  Result<FrontEndFacts> facts = analyse(module, {});
  ASSERT_FALSE(facts.ok());
  EXPECT_NE(facts.error().message.find("calls imported function env.puts"), std::string::npos);
}

}  // namespace
}  // namespace wasmgpu::frontend
