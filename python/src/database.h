// kiln.Database: a tuning database file (database/sqlite_database.h), the one `tune run` and
// `tune compile` use unless told otherwise. kiln.tune and kiln.compile take it to say where
// records go and come from.
#pragma once

#include <memory>
#include <string>

#include "database/sqlite_database.h"

namespace kiln::python {

struct PyDatabase {
  std::string path;
  std::unique_ptr<database::SqliteDatabase> db;
  // The open database; kiln::Error(kIO) once closed.
  database::SqliteDatabase& Get();
};

}  // namespace kiln::python
