// The corpus under testdata/: for every format, real-world valid documents
// and invalid ones with the exact line:column of their first error. Columns
// count code points, so the emoji, CJK and combining marks placed before
// some errors each count as one column.

import assert from "node:assert/strict";
import { type Format, FORMATS, validate, validateFile } from "./mod.ts";

/** Invalid file → [line, column] of the first error, checked by hand. */
const FIRST_ERROR: Record<Format, [string, number, number][]> = {
  json: [
    ["combining_mark_then_bad_literal.json", 1, 11],
    ["comment.json", 2, 3],
    ["emoji_string_closed_early.json", 1, 17],
    ["empty.json", 1, 1],
    ["invalid_escape.json", 1, 13],
    ["leading_zero.json", 1, 7],
    ["missing_comma.json", 3, 3],
    ["nan.json", 1, 11],
    ["raw_tab_in_string.json", 1, 5],
    ["single_quotes_after_cjk_key.json", 1, 8],
    ["trailing_comma_after_cjk.json", 1, 12],
    ["trailing_comma_object.json", 3, 15],
    ["two_top_level_values.json", 2, 1],
    ["unclosed_array.json", 4, 1],
    ["unquoted_key.json", 1, 3],
  ],
  jsonc: [
    ["double_comma.jsonc", 1, 4],
    ["emoji_then_missing_comma.jsonc", 1, 22],
    ["extra_closing_brace.jsonc", 1, 10],
    ["fraction_without_digit.jsonc", 1, 7],
    ["hash_comment.jsonc", 2, 3],
    ["missing_colon.jsonc", 1, 6],
    ["missing_comma_after_comment.jsonc", 4, 3],
    ["single_quoted_key.jsonc", 1, 2],
    ["unclosed_object.jsonc", 5, 1],
    ["unquoted_key.jsonc", 2, 3],
    ["unterminated_block_comment.jsonc", 2, 3],
  ],
  yaml: [
    ["bad_escape.yaml", 1, 14],
    ["bad_indentation.yaml", 3, 4],
    ["billion_laughs.yaml", 6, 8],
    ["cjk_then_unclosed_quote.yaml", 1, 5],
    ["duplicate_key_after_emoji.yaml", 2, 1],
    ["duplicate_key_workflow.yml", 6, 5],
    ["recursive_alias.yaml", 2, 10],
    ["second_document_broken.yaml", 8, 3],
    ["sequence_then_mapping.yaml", 3, 3],
    ["tab_indentation.yaml", 2, 1],
    ["unclosed_flow_sequence.yaml", 1, 8],
    ["unclosed_quote.yaml", 1, 8],
    ["unknown_alias.yaml", 4, 13],
  ],
  toml: [
    ["cjk_then_garbage.toml", 1, 12],
    ["duplicate_key.toml", 3, 1],
    ["duplicate_table.toml", 4, 2],
    ["emoji_then_bad_escape.toml", 1, 7],
    ["inline_table_missing_comma.toml", 1, 17],
    ["invalid_date.toml", 1, 12],
    ["leading_zero.toml", 1, 5],
    ["missing_value.toml", 1, 6],
    ["space_in_bare_key.toml", 1, 4],
    ["unclosed_array.toml", 2, 1],
    ["unclosed_table_header.toml", 1, 7],
    ["unterminated_string.toml", 1, 15],
  ],
  xml: [
    ["bare_ampersand.xml", 1, 9],
    ["cjk_element_unclosed_attr.xml", 1, 8],
    ["control_character.xml", 1, 8],
    ["declaration_not_first.xml", 2, 1],
    ["double_dash_in_comment.xml", 2, 12],
    ["duplicate_attribute.xml", 1, 10],
    ["emoji_then_mismatch.xml", 1, 9],
    ["less_than_in_attribute.xml", 1, 12],
    ["mismatched_end_tag.xml", 2, 15],
    ["text_before_root.xml", 1, 1],
    ["two_roots.xml", 2, 1],
    ["unclosed_root.xml", 3, 1],
    ["undeclared_entity.xml", 1, 4],
    ["unquoted_attribute.xml", 1, 7],
  ],
  regex: [
    ["bad_group_name.txt", 1, 4],
    ["cjk_then_range_out_of_order.txt", 1, 4],
    ["double_quantifier.txt", 1, 4],
    ["duplicate_group_name.txt", 1, 11],
    ["emoji_range_no_flag.txt", 1, 2],
    ["emoji_then_unterminated_group.txt", 1, 3],
    ["invalid_escape_u.txt", 1, 1],
    ["invalid_group.txt", 1, 1],
    ["lone_brace_u.txt", 1, 2],
    ["lookbehind_quantified.txt", 1, 7],
    ["nothing_to_repeat.txt", 1, 3],
    ["quantifier_out_of_order.txt", 1, 2],
    ["range_out_of_order.txt", 1, 2],
    ["trailing_backslash.txt", 1, 4],
    ["unknown_named_reference.txt", 1, 8],
    ["unknown_property_u.txt", 1, 1],
    ["unmatched_paren.txt", 1, 4],
    ["unterminated_class.txt", 1, 1],
    ["unterminated_group.txt", 1, 1],
  ],
  glob: [
    ["combining_then_double_star.txt", 1, 8],
    ["control_character.txt", 1, 6],
    ["double_star_in_name.txt", 1, 5],
    ["emoji_then_unclosed_brace.txt", 1, 4],
    ["empty.txt", 1, 1],
    ["range_out_of_order.txt", 1, 6],
    ["separator_in_class.txt", 1, 7],
    ["trailing_backslash.txt", 1, 4],
    ["triple_star.txt", 1, 3],
    ["unclosed_brace.txt", 1, 6],
    ["unclosed_class.txt", 1, 5],
    ["unmatched_brace.txt", 1, 9],
    ["unmatched_bracket.txt", 1, 2],
  ],
  url: [
    ["bad_ipv4.txt", 1, 8],
    ["emoji_then_bad_port.txt", 1, 19],
    ["empty.txt", 1, 1],
    ["forbidden_host_char.txt", 1, 12],
    ["missing_host.txt", 1, 9],
    ["port_not_number.txt", 1, 20],
    ["port_too_large.txt", 1, 20],
    ["relative_path.txt", 1, 1],
    ["scheme_relative.txt", 1, 1],
    ["space_in_host.txt", 1, 11],
    ["space_in_scheme.txt", 1, 3],
    ["unclosed_ipv6.txt", 1, 8],
  ],
  pattern: [
    ["bad_extension_verb.txt", 1, 1],
    ["control_in_target.txt", 1, 8],
    ["emoji_then_control.txt", 1, 8],
    ["empty.txt", 1, 1],
    ["empty_target.txt", 1, 6],
    ["empty_verb.txt", 1, 1],
    ["newline_in_target.txt", 1, 8],
    ["no_colon.txt", 1, 1],
    ["not_nfc_target.txt", 1, 9],
    ["nul_in_target.txt", 1, 7],
    ["unknown_verb.txt", 1, 1],
    ["uppercase_verb.txt", 1, 1],
  ],
};

const TESTDATA = new URL("./testdata/", import.meta.url);

function files(format: Format, kind: "valid" | "invalid"): string[] {
  return [...Deno.readDirSync(new URL(`${format}/${kind}/`, TESTDATA))]
    .map((entry) => entry.name)
    .sort();
}

function read(format: Format, kind: string, name: string): string {
  return Deno.readTextFileSync(new URL(`${format}/${kind}/${name}`, TESTDATA));
}

// Regex files ending in _u.txt or _v.txt are checked with that flag.
function flagsOf(name: string): string {
  const match = /_([uv])\.txt$/.exec(name);
  return match === null ? "" : match[1];
}

Deno.test("validate() accepts every valid document of the corpus", async (t) => {
  for (const format of FORMATS) {
    const names = files(format, "valid");
    assert.ok(names.length >= 5, `${format} has ${names.length} valid files`);
    for (const name of names) {
      await t.step(`${format}/valid/${name}`, () => {
        const result = validate(read(format, "valid", name), format, {
          flags: flagsOf(name),
        });
        assert.deepEqual(
          result.diagnostics.filter((d) => d.severity === "error"),
          [],
        );
        assert.equal(result.ok, true);
      });
    }
  }
});

Deno.test("validate() reports the exact line:column of the first error in every invalid document", async (t) => {
  for (const format of FORMATS) {
    const expected = new Map(
      FIRST_ERROR[format].map((
        [name, line, column],
      ) => [name, { line, column }]),
    );
    const names = files(format, "invalid");
    assert.ok(
      names.length >= 10,
      `${format} has ${names.length} invalid files`,
    );
    assert.deepEqual(
      names,
      [...expected.keys()].sort(),
      `${format}: table and files differ`,
    );
    for (const name of names) {
      await t.step(`${format}/invalid/${name}`, () => {
        const result = validate(read(format, "invalid", name), format, {
          flags: flagsOf(name),
        });
        assert.equal(result.ok, false);
        const error = result.diagnostics.find((d) => d.severity === "error")!;
        assert.deepEqual(
          { line: error.line, column: error.column },
          expected.get(name),
          error.message,
        );
        assert.match(
          error.message,
          /^[A-Z\'"]/,
          "messages start in sentence case",
        );
      });
    }
  }
});

Deno.test("validateFile() picks the corpus formats from the file names", async (t) => {
  const cases: [string, string, Format][] = [
    ["jsonc/valid/tsconfig.json", "tsconfig.json", "jsonc"],
    ["json/valid/package.json", "package.json", "json"],
    ["yaml/valid/docker-compose.yml", "docker-compose.yml", "yaml"],
    ["toml/valid/Cargo.toml", "Cargo.toml", "toml"],
    ["xml/valid/pom.xml", "pom.xml", "xml"],
    ["xml/valid/icon.svg", "icon.svg", "xml"],
  ];
  for (const [file, path, format] of cases) {
    await t.step(path, () => {
      const text = Deno.readTextFileSync(new URL(file, TESTDATA));
      const result = validateFile(path, text);
      assert.equal(result.format, format);
      assert.equal(result.ok, true);
    });
  }
});
