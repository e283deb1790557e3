// Turns a drop (files and whole folders) or a folder <input> into a flat list
// of files with their folder path relative to the drop target.
export interface PickedFile {
  file: File;
  /** "" for a top-level file, else "folder/sub" */
  dir: string;
}

/** From <input type=file webkitdirectory>: webkitRelativePath is "top/sub/name". */
export function fromInput(list: FileList | File[]): PickedFile[] {
  return Array.from(list).map((file) => {
    const rel = (file as File & { webkitRelativePath?: string }).webkitRelativePath || '';
    const slash = rel.lastIndexOf('/');
    return { file, dir: slash > 0 ? rel.slice(0, slash) : '' };
  });
}

function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  // readEntries returns batches (100 in Chrome) until an empty one.
  return new Promise((resolve, reject) => {
    const out: FileSystemEntry[] = [];
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(out);
        else {
          out.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

async function walk(entry: FileSystemEntry, dir: string, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, dir });
  } else if (entry.isDirectory) {
    const sub = dir ? `${dir}/${entry.name}` : entry.name;
    const children = await readAll((entry as FileSystemDirectoryEntry).createReader());
    for (const c of children) await walk(c, sub, out);
  }
}

/** Files of a drop, folders walked recursively (DataTransferItem.webkitGetAsEntry). */
export async function fromDrop(dt: DataTransfer): Promise<PickedFile[]> {
  // Entries must be taken synchronously, before the first await.
  const entries: FileSystemEntry[] = [];
  const loose: File[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.();
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  if (entries.length === 0 && loose.length === 0) return Array.from(dt.files).map((file) => ({ file, dir: '' }));
  const out: PickedFile[] = loose.map((file) => ({ file, dir: '' }));
  for (const e of entries) await walk(e, '', out);
  return out;
}
