import { qBool, qInt, v } from '@minilake/core';

const path = v.pipe(v.string('path is required'), v.minLength(1, 'path must not be empty'));
const handle = v.pipe(v.number('handle must be a number'), v.integer('handle must be an integer'));

export const CreateRequest = v.object({ path, overwrite: v.optional(qBool()) });
export const AddBlockRequest = v.object({ handle, data: v.string('data is required') });
export const CloseRequest = v.object({ handle });
export const PutRequest = v.object({
  path,
  contents: v.optional(v.string()),
  overwrite: v.optional(qBool()),
});
export const ReadRequest = v.object({ path, offset: v.optional(qInt()), length: v.optional(qInt()) });
export const GetStatusRequest = v.object({ path });
export const ListStatusRequest = v.object({ path });
export const MkDirsRequest = v.object({ path });
export const DeleteRequest = v.object({ path, recursive: v.optional(qBool()) });
export const MoveRequest = v.object({ source_path: path, destination_path: path });

export const UploadRequest = v.object({ overwrite: v.optional(qBool()) });
export const ListDirectoryContentsRequest = v.object({
  page_size: v.optional(qInt()),
  page_token: v.optional(v.string()),
});
