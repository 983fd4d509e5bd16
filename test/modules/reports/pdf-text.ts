import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** A PDF read back with a real PDF reader (pdf.js): its page count and each page's text. */
export async function readPdf(bytes: Buffer): Promise<{ pages: number; text: string[] }> {
  const task = getDocument({
    data: new Uint8Array(bytes),
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
  });
  const doc = await task.promise;
  try {
    const text: string[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const content = await page.getTextContent();
      text.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
    }
    return { pages: doc.numPages, text };
  } finally {
    await task.destroy();
  }
}
