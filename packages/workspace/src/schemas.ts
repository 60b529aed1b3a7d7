import { qBool, qInt, v } from '@minilake/core';

const path = v.pipe(v.string('path is required'), v.minLength(1, 'path must not be empty'));
export const languages = ['PYTHON', 'SQL', 'SCALA', 'R'] as const;
export const formats = ['SOURCE', 'AUTO', 'JUPYTER', 'RAW', 'HTML', 'DBC', 'R_MARKDOWN'] as const;
const format = v.picklist(formats, `format must be one of ${formats.join(', ')}`);
const language = v.picklist(languages, `language must be one of ${languages.join(', ')}`);

export const ImportRequest = v.object({
  path,
  content: v.optional(v.string()),
  format: v.optional(format),
  language: v.optional(language),
  overwrite: v.optional(qBool()),
});
export const ExportRequest = v.object({
  path,
  format: v.optional(format),
  direct_download: v.optional(qBool()),
});
export const GetStatusRequest = v.object({ path, return_export_info: v.optional(qBool()) });
export const ListRequest = v.object({ path, notebooks_modified_after: v.optional(qInt()) });
export const MkdirsRequest = v.object({ path });
export const DeleteRequest = v.object({ path, recursive: v.optional(qBool()) });
export const ImportFileQuery = v.object({ overwrite: v.optional(qBool()) });
