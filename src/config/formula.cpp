#include "rdpaudit/config/formula.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>

namespace rdpaudit::config {

void check_formula(const std::string& text, const char* key, const std::vector<const char*>& names,
                   const char* names_text, Reader& r) {
  mu::Parser parser;
  try {
    for (const char* name : names) parser.DefineConst(name, 1.0);
    parser.SetExpr(text);
    parser.Eval();
    if (parser.GetNumResults() != 1)
      r.fail(key, std::string("must be one expression, not a comma-separated list; ") + names_text);
  } catch (const mu::Parser::exception_type& e) {
    const std::string token = e.GetToken();
    std::string problem;
    if (e.GetCode() == mu::ecUNASSIGNABLE_TOKEN && !token.empty()) {
      problem = fmt::format("unknown name \"{}\"", token);
    } else if (e.GetCode() == mu::ecUNEXPECTED_OPERATOR && token == "=") {
      problem = "assignment is not allowed (compare with ==)";
    } else {
      problem = fmt::format("syntax error ({})", e.GetMsg());
    }
    r.fail(key, fmt::format("{} at position {}; {}", problem,
                            std::min<std::size_t>(e.GetPos(), text.size()), names_text));
  }
}

}  // namespace rdpaudit::config
